// Load: the k6 scenarios of tests/load (browsing users, session writers, chat, live viewers on
// socket.io) run by Node against a local system, since the k6 binary cannot be installed here.
// The steps are the same generators (tests/load/lib/flows.ts) and the socket.io framing the
// same functions (tests/load/lib/engine-io.ts); only the transport differs (fetch and `ws`
// instead of k6/http and k6/ws). Cluster mode (ten processes over NATS, PostgreSQL, Redis)
// when NATS_URL, DATABASE_URL and REDIS_URL are set, else embedded. Short by default
// (BENCH_LOAD_SECONDS=10); the k6 thresholds of tests/load/chronicler.ts are checked at the end.
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { connectPacket, decode, eventPacket, PONG, socketIoUrl } from '../load/lib/engine-io.ts';
import { browsing, chat, linesOf, liveFinal, sentAtOf, writer, type Flow } from '../load/lib/flows.ts';
import { startSystem, type TestSystem } from '../support/system.ts';
import { percentile, printTable } from './report.ts';

const SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const USERS = Number(process.env.BENCH_LOAD_USERS ?? 8);
const LIVE_SESSIONS = Number(process.env.BENCH_LOAD_LIVE_SESSIONS ?? 2);
const VIEWERS = Number(process.env.BENCH_LOAD_VIEWERS ?? 20);
/** Think time between iterations, as the k6 script sleeps (s). */
const THINK_S = Number(process.env.BENCH_LOAD_THINK_S ?? 0.2);

/** The thresholds of tests/load/chronicler.ts (p95 per step in ms). */
const P95_LIMITS: Record<string, number> = {
  'list transcripts': 300,
  'get transcript': 300,
  'create manual transcript': 800,
  'rename transcript': 300,
  chat: 3000,
};
const LIVE_P99_LIMIT_MS = 500;
const FAILURE_RATE_LIMIT = 0.01;

interface User {
  token: string;
  id: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class Recorder {
  readonly durations = new Map<string, number[]>();
  failures = 0;
  requests = 0;
  readonly failed: string[] = [];

  add(step: string, ms: number, ok: boolean, detail: string): void {
    this.requests++;
    if (!ok) {
      this.failures++;
      if (this.failed.length < 5) this.failed.push(detail);
    }
    const list = this.durations.get(step) ?? [];
    list.push(ms);
    this.durations.set(step, list);
  }
}

async function signIn(url: string, name: string): Promise<User> {
  const res = await fetch(`${url}/api/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: name, password: `load-${name}-password`, create: true }),
  });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { token: string; user: { id: string } };
  return { token: body.token, id: body.user.id };
}

/** Runs one flow with fetch, as runFlow of the k6 script does with k6/http. */
async function runFlow(url: string, flow: Flow, token: string, rec: Recorder): Promise<unknown[]> {
  const bodies: unknown[] = [];
  let next = flow.next();
  while (!next.done) {
    const step = next.value;
    const started = performance.now();
    const res = await fetch(`${url}${step.path}`, {
      method: step.method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: step.body === undefined ? undefined : JSON.stringify(step.body),
    });
    const text = await res.text();
    const ok = res.status === step.expect;
    rec.add(step.name, performance.now() - started, ok, `${step.name}: ${res.status} ${text.slice(0, 200)}`);
    if (!ok) return bodies;
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    bodies.push(json);
    next = flow.next({ status: res.status, json });
  }
  return bodies;
}

/** A viewer on socket.io over a bare websocket: the framing of the k6 script. */
function viewer(
  url: string,
  token: string,
  transcriptId: string,
  latencies: number[],
  errors: { count: number },
  joined: { count: number },
): { close(): void } {
  const socket = new WebSocket(socketIoUrl(url), { headers: { origin: url } });
  socket.on('message', (data: Buffer) => {
    const p = decode(data.toString('utf8'));
    if (p.kind === 'ping') socket.send(PONG);
    else if (p.kind === 'open') socket.send(connectPacket({ token }));
    else if (p.kind === 'connected') socket.send(eventPacket('join-transcription', { transcriptId }));
    else if (p.kind === 'connect_error') {
      errors.count++;
      socket.close();
    } else if (p.kind === 'event' && p.name === 'joined-transcription') joined.count++;
    else if (p.kind === 'event' && p.name === 'final_update') {
      const payload = p.args[0] as { type?: string };
      if (payload?.type !== 'final') return;
      for (const line of linesOf(payload)) {
        const sentAt = sentAtOf(line.text);
        if (sentAt !== undefined) latencies.push(Date.now() - sentAt);
      }
    }
  });
  socket.on('error', () => errors.count++);
  return { close: () => socket.close() };
}

export async function benchLoad(): Promise<void> {
  const cluster = Boolean(process.env.NATS_URL && process.env.DATABASE_URL && process.env.REDIS_URL);
  const ingestKey = randomBytes(24).toString('hex');
  const env = {
    AUTH_LOCAL_ENABLED: 'true',
    LIVE_INGEST_KEY: ingestKey,
    RATE_LIMIT_IP_MAX: '1000000',
    RATE_LIMIT_USER_MAX: '1000000',
    RATE_LIMIT_SIGN_IN_MAX: '100000',
    AI_RATE_LIMIT_PER_MINUTE: '100000',
    SUMMARY_AUTOMATIC: 'false',
  };
  const system: TestSystem = await startSystem({
    mode: cluster ? 'cluster' : 'embedded',
    processes: cluster ? 'many' : 'one',
    env,
  });
  const url = system.url;
  const rec = new Recorder();
  try {
    const run = Date.now().toString(36);
    const users = await Promise.all(Array.from({ length: USERS }, (_, i) => signIn(url, `load-${run}-${i}`)));
    // Three sessions per user before the clock starts, as the k6 setup() makes.
    const owned = await Promise.all(
      users.map(async (u, i) => {
        const ids: string[] = [];
        for (let n = 0; n < 3; n++) {
          const [created] = await runFlow(url, oneStep(writer(i * 100 + n)), u.token, new Recorder());
          const id = (created as { id?: string } | undefined)?.id;
          if (id) ids.push(id);
        }
        return ids;
      }),
    );
    const liveOwner = users[0]!;
    const sessions = await Promise.all(
      Array.from({ length: LIVE_SESSIONS }, async (_, i) => {
        const res = await fetch(`${url}/api/live-ingest/sessions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ingestKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ owner_id: liveOwner.id, name: `Load live ${i}` }),
        });
        if (res.status !== 200)
          throw new Error(`live-ingest start answered ${res.status}: ${await res.text()}`);
        return (await res.json()) as { transcript_id: string; ingest_token: string };
      }),
    );

    const latencies: number[] = [];
    const socketErrors = { count: 0 };
    const joined = { count: 0 };
    const viewers = Array.from({ length: VIEWERS }, (_, i) =>
      viewer(
        url,
        liveOwner.token,
        sessions[i % sessions.length]!.transcript_id,
        latencies,
        socketErrors,
        joined,
      ),
    );
    // Every viewer in its room before the first final (or 20 s, then the report says how many).
    for (let waited = 0; joined.count < VIEWERS && waited < 20_000; waited += 100) await sleep(100);

    const end = Date.now() + SECONDS * 1000;
    const loop = async (body: (iteration: number) => Promise<void>) => {
      for (let it = 0; Date.now() < end; it++) {
        await body(it);
        await sleep(THINK_S * 1000);
      }
    };
    let sent = 0;
    const started = performance.now();
    await Promise.all([
      // Half the users browse, a quarter write, a quarter chat (the k6 scenario mix).
      ...users.map((u, i) =>
        loop(async (it) => {
          if (i % 4 < 2) await runFlow(url, browsing(), u.token, rec);
          else if (i % 4 === 2) await runFlow(url, writer(100_000 * (i + 1) + it), u.token, rec);
          else await runFlow(url, chat(owned[i] ?? []), u.token, rec);
        }),
      ),
      ...sessions.map((s) => {
        let index = 0;
        return loop(async () => {
          index++;
          const t0 = performance.now();
          const res = await fetch(`${url}/api/live-ingest/sessions/${s.transcript_id}/utterances`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ingestKey}`, 'content-type': 'application/json' },
            body: JSON.stringify({
              ingest_token: s.ingest_token,
              utterances: [liveFinal(index, Date.now())],
            }),
          });
          await res.text();
          rec.add('live final', performance.now() - t0, res.status === 200, `live final: ${res.status}`);
          if (res.status === 200) sent++;
        });
      }),
    ]);
    const elapsed = (performance.now() - started) / 1000;
    // The last finals in flight: until deliveries stop growing (at most 5 s).
    for (let before = -1, waited = 0; latencies.length !== before && waited < 5000; waited += 500) {
      before = latencies.length;
      await sleep(500);
    }
    for (const v of viewers) v.close();

    const rows = [...rec.durations].map(([step, list]) => {
      const sorted = [...list].sort((a, b) => a - b);
      const limit = P95_LIMITS[step];
      const p95 = percentile(sorted, 95);
      return {
        step,
        requests: list.length,
        perSecond: list.length / elapsed,
        p50Ms: percentile(sorted, 50),
        p95Ms: p95,
        p99Ms: percentile(sorted, 99),
        p95LimitMs: limit ?? '-',
        ok: limit === undefined || p95 < limit ? 'yes' : 'NO',
      };
    });
    const sortedLatency = [...latencies].sort((a, b) => a - b);
    const expected = sent * (VIEWERS / LIVE_SESSIONS);
    const liveP99 = percentile(sortedLatency, 99);
    printTable(
      `Load scenarios of tests/load, ${SECONDS} s, ${USERS} users, ${LIVE_SESSIONS} live sessions x ${VIEWERS / LIVE_SESSIONS} viewers (${cluster ? 'cluster mode: ten processes' : 'embedded mode'})`,
      rows,
    );
    printTable('Live finals on socket.io (sent through /api/live-ingest, received by every viewer)', [
      {
        viewersJoined: joined.count,
        sent,
        expectedDeliveries: expected,
        delivered: latencies.length,
        socketErrors: socketErrors.count,
        p50Ms: percentile(sortedLatency, 50),
        p99Ms: liveP99,
        p99LimitMs: LIVE_P99_LIMIT_MS,
      },
    ]);
    const failureRate = rec.failures / Math.max(1, rec.requests);
    console.log(`failed requests: ${rec.failures} of ${rec.requests} (${(failureRate * 100).toFixed(2)} %)`);
    for (const f of rec.failed) console.log(`  ${f}`);
    const passed =
      rows.every((r) => r.ok === 'yes') &&
      failureRate < FAILURE_RATE_LIMIT &&
      socketErrors.count === 0 &&
      joined.count === VIEWERS &&
      latencies.length >= expected &&
      latencies.length > 0 &&
      liveP99 < LIVE_P99_LIMIT_MS;
    console.log(`load: the k6 thresholds ${passed ? 'hold' : 'are NOT met'}`);
    if (!passed) process.exitCode = 1;
  } finally {
    await system.stop();
  }
}

/** The first step of a flow only (the setup's session creation). */
function* oneStep(flow: Flow): Flow {
  const first = flow.next();
  if (!first.done) yield first.value;
}

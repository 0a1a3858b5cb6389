/**
 * Chronicler under load, for k6 (1.x runs TypeScript as is):
 *
 *   k6 run -e BASE_URL=https://chronicler.example.com -e LIVE_INGEST_KEY=... tests/load/chronicler.ts
 *
 * Five scenarios at once, all through the gateway as a browser would reach it: browsing users
 * (lists, one transcript, notes, groups), session writers (manual create, rename, summary,
 * notes), chat (a question about a transcript), and live sessions: a speaker per session posting
 * finals through /api/live-ingest, and viewers on socket.io (Engine.IO framing over k6/ws,
 * lib/engine-io.ts) that measure how long each final takes to reach them. The scenarios'
 * steps are shared with the Node driver of `pnpm bench load` (lib/flows.ts). See README.md.
 */
import { check, fail, sleep } from 'k6';
import http from 'k6/http';
import { Counter, Rate, Trend } from 'k6/metrics';
import ws from 'k6/ws';
import type { Options, Scenario } from 'k6/options';
import { connectPacket, decode, eventPacket, PONG, socketIoUrl } from './lib/engine-io.ts';
import { browsing, chat, linesOf, liveFinal, sentAtOf, writer, type Flow, type Reply } from './lib/flows.ts';

const BASE_URL = (__ENV.BASE_URL ?? 'http://localhost:8000').replace(/\/$/, '');
/** Users of the run (local accounts, AUTH_LOCAL_ENABLED=true) or tokens (TOKENS=a,b,...). */
const USERS = Number(__ENV.USERS ?? 20);
const LIVE_SESSIONS = Number(__ENV.LIVE_SESSIONS ?? 5);
const VIEWERS = Number(__ENV.VIEWERS ?? 50);
const DURATION = __ENV.DURATION ?? '2m';
/** The gateway's machine key (the cluster's LIVE_INGEST_KEY); without it no live scenarios run. */
const INGEST_KEY = __ENV.LIVE_INGEST_KEY ?? '';
const FINAL_EVERY_S = Number(__ENV.FINAL_EVERY_S ?? 1);

const liveLatency = new Trend('live_final_latency', true);
const liveFinals = new Counter('live_finals_received');
const socketErrors = new Rate('live_socket_errors');
const stepFailures = new Rate('step_failures');

const live: Record<string, Scenario> = INGEST_KEY
  ? {
      live_speakers: {
        executor: 'per-vu-iterations',
        exec: 'liveSpeaker',
        // Viewers connect and join first.
        startTime: '5s',
        vus: LIVE_SESSIONS,
        iterations: 1,
        maxDuration: DURATION,
      },
      live_viewers: {
        executor: 'per-vu-iterations',
        exec: 'liveViewer',
        vus: VIEWERS,
        iterations: 1,
        maxDuration: DURATION,
      },
    }
  : {};

export const options: Options = {
  setupTimeout: '2m',
  scenarios: {
    browsing: {
      executor: 'constant-vus',
      exec: 'browsingUser',
      vus: Math.max(1, Math.floor(USERS / 2)),
      duration: DURATION,
    },
    writers: {
      executor: 'constant-vus',
      exec: 'sessionWriter',
      vus: Math.max(1, Math.floor(USERS / 4)),
      duration: DURATION,
    },
    chat: {
      executor: 'constant-vus',
      exec: 'chatUser',
      vus: Math.max(1, Math.floor(USERS / 4)),
      duration: DURATION,
    },
    ...live,
  },
  thresholds: {
    http_req_failed: ['rate<0.01'],
    step_failures: ['rate<0.01'],
    'http_req_duration{step:list_transcripts}': ['p(95)<300'],
    'http_req_duration{step:get_transcript}': ['p(95)<300'],
    'http_req_duration{step:create_manual_transcript}': ['p(95)<800'],
    'http_req_duration{step:rename_transcript}': ['p(95)<300'],
    'http_req_duration{step:chat}': ['p(95)<3000'],
    // The live budget is p99 under 100 ms inside the cluster; through an ingress and the internet, allow more.
    live_final_latency: ['p(99)<500'],
    live_socket_errors: ['rate<0.01'],
  },
};

interface User {
  token: string;
  id: string;
}

interface SetupData {
  users: User[];
  /** Per user index: ids of transcripts it owns (for chat). */
  transcripts: string[][];
  live: { transcript_id: string; ingest_token: string }[];
  liveOwner: User | null;
}

function signIn(name: string): User {
  const password = `load-${name}-password`;
  const res = http.post(
    `${BASE_URL}/api/auth/local`,
    JSON.stringify({ username: name, password, create: true }),
    {
      headers: { 'content-type': 'application/json' },
      tags: { step: 'sign_in' },
    },
  );
  if (res.status !== 200)
    fail(
      `sign-in of ${name} answered ${res.status}: ${res.body} (is AUTH_LOCAL_ENABLED=true? else pass TOKENS)`,
    );
  const body = res.json() as { token: string; user: { id: string } };
  return { token: body.token, id: body.user.id };
}

function usersFromTokens(tokens: string[]): User[] {
  return tokens.map((token) => {
    const res = http.get(`${BASE_URL}/api/auth/user`, { headers: { authorization: `Bearer ${token}` } });
    const body = res.json() as { authenticated: boolean; user?: { id: string } };
    if (!body.authenticated || !body.user) fail('a token of TOKENS is not signed in');
    return { token, id: body.user.id };
  });
}

/** Runs one flow with k6/http; answers false when a step failed. */
function runFlow(flow: Flow, token: string): boolean {
  let reply: Reply | undefined;
  for (;;) {
    const next = reply === undefined ? flow.next() : flow.next(reply);
    if (next.done) return true;
    const step = next.value;
    const res = http.request(
      step.method,
      `${BASE_URL}${step.path}`,
      step.body === undefined ? null : JSON.stringify(step.body),
      {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        tags: { step: slug(step.name), name: slug(step.name) },
      },
    );
    const good = check(res, { [`${step.name}: ${step.expect}`]: (r) => r.status === step.expect });
    stepFailures.add(!good);
    if (!good) return false;
    let json: unknown = null;
    try {
      json = res.json();
    } catch {
      json = null;
    }
    reply = { status: res.status, json };
  }
}

export function setup(): SetupData {
  const tokens = (__ENV.TOKENS ?? '').split(',').filter(Boolean);
  const run = Date.now().toString(36);
  const users = tokens.length
    ? usersFromTokens(tokens)
    : Array.from({ length: USERS }, (_, i) => signIn(`load-${run}-${i}`));
  // Every user starts with a few sessions, so lists, reads and chat have something to work on.
  const transcripts = users.map((u, i) => {
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const flow = writer(i * 100 + n);
      const first = flow.next().value;
      if (!first) break;
      const res = http.post(`${BASE_URL}${first.path}`, JSON.stringify(first.body), {
        headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' },
      });
      if (res.status === 200) ids.push((res.json() as { id: string }).id);
    }
    return ids;
  });
  const liveSessions: SetupData['live'] = [];
  const liveOwner = users[0] ?? null;
  if (INGEST_KEY && liveOwner) {
    for (let i = 0; i < LIVE_SESSIONS; i++) {
      const res = http.post(
        `${BASE_URL}/api/live-ingest/sessions`,
        JSON.stringify({ owner_id: liveOwner.id, name: `Load live ${run}-${i}` }),
        { headers: { authorization: `Bearer ${INGEST_KEY}`, 'content-type': 'application/json' } },
      );
      if (res.status !== 200) fail(`live-ingest start answered ${res.status}: ${res.body}`);
      liveSessions.push(res.json() as { transcript_id: string; ingest_token: string });
    }
  }
  return { users, transcripts, live: liveSessions, liveOwner };
}

const userOf = (data: SetupData) => data.users[(__VU - 1) % data.users.length]!;

export function browsingUser(data: SetupData): void {
  runFlow(browsing(), userOf(data).token);
  sleep(1);
}

export function sessionWriter(data: SetupData): void {
  runFlow(writer(__VU * 100_000 + __ITER), userOf(data).token);
  sleep(2);
}

export function chatUser(data: SetupData): void {
  const i = (__VU - 1) % data.users.length;
  runFlow(chat(data.transcripts[i] ?? []), data.users[i]!.token);
  sleep(2);
}

/** One VU per live session: a final every FINAL_EVERY_S seconds until the scenario ends. */
export function liveSpeaker(data: SetupData): void {
  const session = data.live[(__VU - 1) % data.live.length];
  if (!session) return;
  const end = Date.now() + parseDuration(DURATION) - 15_000;
  let index = 0;
  while (Date.now() < end) {
    index++;
    const res = http.post(
      `${BASE_URL}/api/live-ingest/sessions/${session.transcript_id}/utterances`,
      JSON.stringify({ ingest_token: session.ingest_token, utterances: [liveFinal(index, Date.now())] }),
      {
        headers: { authorization: `Bearer ${INGEST_KEY}`, 'content-type': 'application/json' },
        tags: { step: 'live_final' },
      },
    );
    stepFailures.add(res.status !== 200);
    sleep(FINAL_EVERY_S);
  }
  http.post(
    `${BASE_URL}/api/live-ingest/sessions/${session.transcript_id}/end`,
    JSON.stringify({ ingest_token: session.ingest_token, final_count: index }),
    { headers: { authorization: `Bearer ${INGEST_KEY}`, 'content-type': 'application/json' } },
  );
}

/** A viewer on socket.io: joins one live session and measures each final's delivery. */
export function liveViewer(data: SetupData): void {
  const session = data.live[(__VU - 1) % data.live.length];
  if (!session || !data.liveOwner) return;
  const token = data.liveOwner.token;
  const stayMs = parseDuration(DURATION) - 10_000;
  const res = ws.connect(socketIoUrl(BASE_URL), { headers: { origin: BASE_URL } }, (socket) => {
    socket.on('message', (frame: string) => {
      const p = decode(frame);
      if (p.kind === 'ping') socket.send(PONG);
      else if (p.kind === 'open') socket.send(connectPacket({ token }));
      else if (p.kind === 'connected')
        socket.send(eventPacket('join-transcription', { transcriptId: session.transcript_id }));
      else if (p.kind === 'connect_error') {
        socketErrors.add(true);
        socket.close();
      } else if (p.kind === 'event' && p.name === 'final_update') {
        for (const line of linesOf(p.args[0])) {
          const sentAt = sentAtOf(line.text);
          if (sentAt !== undefined) {
            liveFinals.add(1);
            // An 'initial' replays old lines: only fresh ones measure delivery.
            if ((p.args[0] as { type?: string }).type === 'final') liveLatency.add(Date.now() - sentAt);
          }
        }
      } else if (p.kind === 'event' && p.name === 'session_end') socket.close();
    });
    socket.on('error', () => socketErrors.add(true));
    socket.setTimeout(() => socket.close(), stayMs);
  });
  socketErrors.add(!check(res, { 'socket.io upgrade: 101': (r) => r !== null && r.status === 101 }));
}

/** A step's name as a tag value: `list transcripts` → `list_transcripts`. */
const slug = (name: string): string => name.replace(/\s+/g, '_');

function parseDuration(d: string): number {
  const m = /^(\d+)(ms|s|m|h)$/.exec(d);
  if (!m) return 120_000;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

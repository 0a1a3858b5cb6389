// The session API under load (issues 16 and 46; the budgets: at least 0.75x the baseline's
// throughput in cluster mode, 0.8x embedded): GET /api/transcripts (list), GET
// /api/transcripts/:id (one) and PUT /api/transcripts/:id/rename (write), for each session size
// 10 sessions of one user (a user per size), driven by autocannon from this process against
// servers that each run in their own child processes:
// - cluster: the gateway, auth and transcript services over NATS, PostgreSQL and Redis
//   (needs NATS_URL, DATABASE_URL, REDIS_URL; skipped without them);
// - cluster baseline: one fastify process running the transcript service's handlers and SQL
//   with node-postgres on the same database and rows, and the gateway's token check (its
//   session cache over the auth service's verify-session handler) on the cluster's tokens
//   (gateway-baseline.ts);
// - embedded: the all-in-one process on PGlite;
// - embedded baseline: one fastify process running the same handlers on PGlite.
// Rounds are interleaved (each round measures every size, system and request once) so that the
// drift of a busy machine hits all alike; the report shows medians over rounds and the
// ratios the budgets are stated in. Then, in cluster mode, a page of 50 with 50 sessions
// stored against the same page with 10,000 stored (the list must cost O(page), not O(stored)),
// and with 10 stored, where the page holds only those 10.
// BENCH_SECONDS (10) per measurement, BENCH_ROUNDS (5), BENCH_CONNECTIONS (50), BENCH_SESSION_KB
// (the sizes, comma-separated: 1,20,500: a short session, an evening's, a 4-hour one),
// BENCH_BIG_LIST (10,000; 0 leaves the page comparison out).
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { localSignIn } from '../support/auth.ts';
import { freePort, repoRoot, startSystem, stopChild, waitFor, type TestSystem } from '../support/system.ts';
import { median, printTable } from './report.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SESSIONS = 10;
const BIG_LIST = Number(process.env.BENCH_BIG_LIST ?? 10_000);
/**
 * Sizes of the seeded sessions' content in KB (BENCH_SESSION_KB, default 1,20,500): 1 for a
 * short session, 20 for an evening's, 500 for a 4-hour one (500,000 characters).
 */
const SIZES_KB = (process.env.BENCH_SESSION_KB ?? '1,20,500')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => n > 0);
/** The content of a seeded session: SESSION_KB KB of lines (shared with gateway-baseline.ts). */
export const sessionContent = (kb: number): string =>
  'GM: You enter the tavern.\n'.repeat(Math.max(1, Math.floor((kb * 1000) / 26)));
/**
 * Rate limits stay in the path (they are part of a request's cost) but never refuse. An access
 * token lasts the whole run: with the default 15 minutes, a run of 5 rounds of 10 s outlives
 * the tokens signed in at its start, and its last rounds measured 401s (errors at 10,000 req/s).
 */
const NO_LIMITS = {
  RATE_LIMIT_IP_MAX: '100000000',
  RATE_LIMIT_USER_MAX: '100000000',
  AUTH_TOKEN_TTL: '6h',
};

const BUDGET_THROUGHPUT = { cluster: 0.75, embedded: 0.8 };
const BUDGET_P50 = 2;
const BUDGET_PAGE = 1.5;

type Op = 'list' | 'one' | 'write';
const OPS: Op[] = ['list', 'one', 'write'];

/** One user's sessions of one size on a target: how to sign in as them, and the session read and renamed. */
interface Seeded {
  headers: Record<string, string>;
  id: string;
}

export interface Target {
  name: string;
  url: string;
  /** By session size in KB. */
  bySize: Map<number, Seeded>;
  /**
   * After a write measurement: puts the store back as it was for the next one. On PostgreSQL,
   * thousands of renames of one row leave dead versions that the next list (of whichever
   * system, both share the database) would scan until autovacuum came by.
   */
  afterWrite?(): Promise<void>;
  stop(): Promise<void>;
}

/** VACUUM of the sessions table that the cluster and its baseline share. */
function vacuum(url: string): () => Promise<void> {
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('vacuum (analyze) transcript.transcripts');
    } finally {
      await client.end();
    }
  };
}

export interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

function requestOf(t: Target, kb: number, op: Op): autocannon.Options {
  const { headers, id } = t.bySize.get(kb)!;
  const base = { url: t.url, connections: CONNECTIONS, duration: SECONDS, headers };
  if (op === 'list') return { ...base, url: `${t.url}/api/transcripts` };
  if (op === 'one') return { ...base, url: `${t.url}/api/transcripts/${id}` };
  return {
    ...base,
    method: 'PUT',
    url: `${t.url}/api/transcripts/${id}/rename`,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Session renamed under load' }),
  };
}

/**
 * Waits for what a measurement left in flight: autocannon stops at its duration, while the
 * requests it sent last are still being answered (a 500 KB session's take a second under
 * load), and their work must not count against the next measurement.
 */
const settle = (s: Sample): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.min(5000, s.p99) + 250));

export async function measure(opts: autocannon.Options): Promise<Sample> {
  const r = await autocannon(opts);
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

/** A child process that prints one JSON line when ready (gateway-baseline.ts). */
async function startBaseline(name: string, env: NodeJS.ProcessEnv): Promise<Target> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'tests/bench/gateway-baseline.ts'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} while starting`)));
  });
  const ready = JSON.parse(line) as { port: number; users: { kb: number; token: string; ids: string[] }[] };
  return {
    name,
    url: `http://127.0.0.1:${ready.port}`,
    // On PGlite, its own users; on PostgreSQL the caller gives the cluster's.
    bySize: new Map(
      ready.users.map((u) => [u.kb, { headers: { authorization: `Bearer ${u.token}` }, id: u.ids[0]! }]),
    ),
    stop: () => stopChild(child),
  };
}

/** Signs a user in and creates SESSIONS sessions of `kb` KB through the API; the bearer headers and ids. */
async function seedThroughApi(
  url: string,
  user: string,
  kb: number,
): Promise<{ headers: Record<string, string>; ids: string[]; owner: string }> {
  const signIn = await localSignIn(url, user);
  const headers = { authorization: `Bearer ${signIn.cookie}` };
  const ids: string[] = [];
  for (let i = 0; i < SESSIONS; i++) {
    const res = await fetch(`${url}/api/transcripts/manual`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `Session ${i + 1}`,
        session_date: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
        summary: 'The party rests at the inn.',
        transcript: sessionContent(kb),
      }),
    });
    if (res.status !== 200) throw new Error(`create answered ${res.status}: ${await res.text()}`);
    ids.push(((await res.json()) as { id: string }).id);
  }
  return { headers, ids, owner: signIn.body.user?.id ?? '' };
}

/** One user per size with SESSIONS sessions of that size, seeded through the API. */
async function seedSizes(url: string, prefix: string, sizes = SIZES_KB): Promise<Map<number, Seeded>> {
  const bySize = new Map<number, Seeded>();
  for (const kb of sizes) {
    const seeded = await seedThroughApi(url, `${prefix}-${kb}`, kb);
    bySize.set(kb, { headers: seeded.headers, id: seeded.ids[0]! });
  }
  return bySize;
}

async function startCluster(): Promise<{ system: TestSystem; target: Target }> {
  const system = await startSystem({
    mode: 'cluster',
    processes: 'many',
    services: ['auth', 'transcript'],
    env: { AUTH_LOCAL_ENABLED: 'true', LOG_LEVEL: 'warn', ...NO_LIMITS },
  });
  // A failed seed stops the services it started (they would outlive the bench).
  const bySize = await seedSizes(system.url, 'bench-cluster').catch(async (err: unknown) => {
    await system.stop();
    throw err;
  });
  return {
    system,
    target: { name: 'cluster', url: system.url, bySize, stop: () => system.stop() },
  };
}

/**
 * The all-in-one process on PGlite with SESSIONS sessions of one user per size in `sizes`
 * (default BENCH_SESSION_KB's); `env` is added to its environment.
 */
export async function startEmbeddedProcess(
  extraEnv: NodeJS.ProcessEnv = {},
  sizes: number[] = SIZES_KB,
): Promise<Target> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-bench-gw-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    PORT: String(port),
    OPS_PORT: String(await freePort()),
    HOST: '127.0.0.1',
    BUS_PREFIX: `bench${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'warn',
    AUTH_LOCAL_ENABLED: 'true',
    ...NO_LIMITS,
    ...extraEnv,
  };
  // BENCH_NODE_ARGS adds Node options (e.g. `--cpu-prof --cpu-prof-dir=DIR` for a profile).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'services/all-in-one/src/main.ts'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => {
    if (child.exitCode !== null) throw new Error(`the embedded process exited with ${child.exitCode}`);
    return (await fetch(`${url}/api/health`).catch(() => undefined))?.status === 200;
  }, 120_000);
  const bySize = await seedSizes(url, 'bench-embedded', sizes).catch(async (err: unknown) => {
    await stopChild(child);
    throw err;
  });
  return {
    name: 'embedded',
    url,
    bySize,
    async stop() {
      await stopChild(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Medians over the rounds, by `${target} ${kb}` and op. */
type Results = Map<string, Map<Op, Sample>>;
const keyOf = (target: string, kb: number): string => `${target} ${kb}`;

async function runRounds(targets: Target[]): Promise<Results> {
  const samples = new Map<string, Map<Op, Sample[]>>(
    targets.flatMap((t) =>
      SIZES_KB.map((kb) => [keyOf(t.name, kb), new Map(OPS.map((o) => [o, []]))] as const),
    ),
  );
  // Warm-up: a short run of each, so that no round pays for JIT and connection pools.
  for (const kb of SIZES_KB) {
    for (const t of targets) {
      for (const op of OPS) {
        await settle(await measure({ ...requestOf(t, kb, op), duration: 1 }));
        if (op === 'write') await t.afterWrite?.();
      }
    }
  }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const kb of SIZES_KB) {
      for (const t of targets) {
        for (const op of OPS) {
          const s = await measure(requestOf(t, kb, op));
          await settle(s);
          if (op === 'write') await t.afterWrite?.();
          samples.get(keyOf(t.name, kb))!.get(op)!.push(s);
          process.stdout.write(
            `round ${round}/${ROUNDS} ${`${kb} KB`.padStart(6)} ${t.name.padEnd(18)} ${op.padEnd(5)} ` +
              `${s.rps.toFixed(0).padStart(6)} req/s p50 ${s.p50} ms p99 ${s.p99} ms` +
              `${s.errors ? ` ERRORS ${s.errors}` : ''}\n`,
          );
        }
      }
    }
  }
  const results: Results = new Map();
  for (const [key, byOp] of samples) {
    const m = new Map<Op, Sample>();
    for (const [op, ss] of byOp) {
      m.set(op, {
        rps: median(ss.map((s) => s.rps)),
        p50: median(ss.map((s) => s.p50)),
        p99: median(ss.map((s) => s.p99)),
        errors: ss.reduce((a, s) => a + s.errors, 0),
      });
    }
    results.set(key, m);
  }
  return results;
}

const mark = (ok: boolean): string => (ok ? 'within budget' : 'OVER BUDGET');

/** One line per size and op: the system's throughput, p50 and p99 over the baseline's. */
function printRatios(
  results: Results,
  system: 'cluster' | 'embedded',
  baseline: string,
  withP50: boolean,
): void {
  if (!results.has(keyOf(system, SIZES_KB[0]!)) || !results.has(keyOf(baseline, SIZES_KB[0]!))) return;
  const budget = BUDGET_THROUGHPUT[system];
  console.log(
    `\n${system} / ${baseline} (throughput budget >= ${budget}x${withP50 ? `, p50 <= ${BUDGET_P50}x` : ''}):`,
  );
  for (const kb of SIZES_KB) {
    const a = results.get(keyOf(system, kb))!;
    const b = results.get(keyOf(baseline, kb))!;
    for (const op of OPS) {
      const x = a.get(op)!;
      const y = b.get(op)!;
      const rps = x.rps / y.rps;
      const p50 = x.p50 / y.p50;
      console.log(
        `  ${`${kb} KB`.padStart(6)} ${op.padEnd(5)} throughput ${rps.toFixed(2)}x (${mark(rps >= budget)})` +
          `; p50 ${p50.toFixed(2)}x` +
          (withP50 ? ` (${mark(p50 <= BUDGET_P50)})` : '') +
          `; p99 ${(x.p99 / y.p99).toFixed(2)}x`,
      );
    }
  }
}

/** A page of 50 for a user with 10 sessions against one with BIG_LIST, through the cluster's gateway. */
async function pageComparison(system: TestSystem): Promise<void> {
  const users: { count: number; owner: string; headers: Record<string, string> }[] = [];
  // 50 stored: a full page, so that the body is the same as the big list's page.
  for (const count of [10, 50, BIG_LIST]) {
    const signIn = await localSignIn(system.url, `bench-page-${count}`);
    users.push({ count, owner: signIn.body.user!.id, headers: { authorization: `Bearer ${signIn.cookie}` } });
  }
  const client = new pg.Client({ connectionString: system.env.DATABASE_URL });
  await client.connect();
  try {
    for (const u of users) {
      await client.query(
        `insert into transcript.transcripts (owner_id, name, session_timestamp, content, preview, summary, source)
         select $1::uuid, 'Session ' || g, timestamptz '2020-01-01' + g * interval '1 hour',
                repeat(md5(g::text), 100), left(md5(g::text), 100), 'The party rests at the inn.', 'manual'
           from generate_series(1, $2::int) g`,
        [u.owner, u.count],
      );
    }
    await client.query('analyze transcript.transcripts');
  } finally {
    await client.end();
  }
  const samples = new Map<number, Sample[]>(users.map((u) => [u.count, []]));
  const opts = (u: (typeof users)[number]): autocannon.Options => ({
    url: `${system.url}/api/transcripts?limit=50`,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: u.headers,
  });
  for (const u of users) await measure({ ...opts(u), duration: 1 });
  for (let round = 0; round < ROUNDS; round++) {
    for (const u of users) samples.get(u.count)!.push(await measure(opts(u)));
  }
  const rows = users.map((u) => {
    const ss = samples.get(u.count)!;
    return {
      stored: u.count,
      'req/s': median(ss.map((s) => s.rps)),
      'p50 ms': median(ss.map((s) => s.p50)),
      'p99 ms': median(ss.map((s) => s.p99)),
      errors: ss.reduce((a, s) => a + s.errors, 0),
    };
  });
  printTable('GET /api/transcripts?limit=50 through the cluster (medians over rounds)', rows);
  const [small, full, big] = rows as [(typeof rows)[number], (typeof rows)[number], (typeof rows)[number]];
  // The budget compares the same page (50 sessions) over 50 and BIG_LIST stored: what the
  // stored count adds. With 10 stored the page holds 10 sessions, so that ratio also counts the
  // 40 more items a full page sends; it is printed, not judged.
  const cost = full['req/s'] / big['req/s'];
  console.log(
    `page of 50, ${BIG_LIST.toLocaleString('en-US')} / 50 sessions stored (the same 50 items): cost per request ` +
      `${cost.toFixed(2)}x (budget <= ${BUDGET_PAGE}: ${mark(cost <= BUDGET_PAGE)}), ` +
      `p50 ${(big['p50 ms'] / full['p50 ms']).toFixed(2)}x; ` +
      `/ 10 stored (a page of 10 items): ${(small['req/s'] / big['req/s']).toFixed(2)}x, ` +
      `p50 ${(big['p50 ms'] / small['p50 ms']).toFixed(2)}x`,
  );
}

export async function benchGateway(): Promise<void> {
  const started = performance.now();
  const cluster = ['NATS_URL', 'DATABASE_URL', 'REDIS_URL'].every((v) => process.env[v]);
  if (!cluster)
    console.log('gateway: NATS_URL, DATABASE_URL and REDIS_URL are not all set; embedded mode only');
  console.log(
    `gateway: ${ROUNDS} interleaved rounds of ${SECONDS} s per measurement, ${CONNECTIONS} connections, ` +
      `${SESSIONS} sessions of one user per size (${SIZES_KB.join(', ')} KB), ${os.cpus().length} CPU cores, ` +
      `load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  const targets: Target[] = [];
  let clusterSystem: TestSystem | undefined;
  try {
    if (cluster) {
      const c = await startCluster();
      clusterSystem = c.system;
      const afterWrite = vacuum(c.system.env.DATABASE_URL!);
      targets.push({ ...c.target, afterWrite });
      // The same database and token key: it reads the cluster's rows for the cluster's tokens.
      const baseline = await startBaseline('cluster-baseline', {
        DATABASE_URL: c.system.env.DATABASE_URL,
        AUTH_JWT_SECRET: c.system.env.AUTH_JWT_SECRET,
        AUTH_TOKEN_TTL: NO_LIMITS.AUTH_TOKEN_TTL,
      });
      targets.push({ ...baseline, bySize: c.target.bySize, afterWrite });
    }
    targets.push(await startEmbeddedProcess());
    const pgliteDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-bench-gw-pglite-'));
    const pgliteBaseline = await startBaseline('embedded-baseline', {
      DATA_DIR: pgliteDir,
      AUTH_TOKEN_TTL: NO_LIMITS.AUTH_TOKEN_TTL,
      BASELINE_SESSIONS: String(SESSIONS),
      BASELINE_SIZES_KB: SIZES_KB.join(','),
    });
    targets.push({
      ...pgliteBaseline,
      async stop() {
        await pgliteBaseline.stop();
        rmSync(pgliteDir, { recursive: true, force: true });
      },
    });

    const results = await runRounds(targets);
    printTable(
      'Session API, medians over rounds',
      [...results].flatMap(([key, byOp]) =>
        OPS.map((op) => {
          const s = byOp.get(op)!;
          const [name, kb] = key.split(' ');
          return {
            system: name,
            'size KB': Number(kb),
            request: op,
            'req/s': s.rps,
            'p50 ms': s.p50,
            'p99 ms': s.p99,
            errors: s.errors,
          };
        }),
      ),
    );
    printRatios(results, 'cluster', 'cluster-baseline', true);
    printRatios(results, 'embedded', 'embedded-baseline', false);
    for (const [name, byOp] of results) {
      if ([...byOp.values()].some((s) => s.errors > 0)) {
        console.log(`${name} answered errors or non-2xx statuses: the figures above are not comparable`);
        process.exitCode = 1;
      }
    }
    // BENCH_BIG_LIST=0 leaves the page comparison out (it seeds 10,000 sessions).
    if (clusterSystem && BIG_LIST > 0) await pageComparison(clusterSystem);
  } finally {
    for (const t of targets.reverse()) await t.stop().catch((err: unknown) => console.error(err));
  }
  console.log(`gateway took ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

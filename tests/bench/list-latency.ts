// Session list latency: GET /api/transcripts through the gateway for users with 10 and with
// 10,000 sessions, each count once with empty content and once with 200,000 characters per
// session, measured side by side in one run. The list must cost the same whatever the
// content size (it never reads content), so the big/empty ratios should stay near 1.
// PostgreSQL when DATABASE_URL is set (a throwaway database on that server), else PGlite.
import type { EmbeddedSystem } from '@chronicler/all-in-one';
import { LIST_PAGE_DEFAULT } from '@chronicler/contracts';
import { localSignIn } from '../support/auth.ts';
import { startBenchSystem } from './embedded.ts';
import { percentile, printTable } from './report.ts';

const CONTENT_CHARS = 200_000;
const COUNTS = [10, Number(process.env.BENCH_LIST_SESSIONS ?? 10_000)];
/** Requests per user and count: many for the cheap small list, fewer for the big one. */
const requestsFor = (sessions: number): number =>
  Number(process.env.BENCH_LIST_REQUESTS ?? (sessions <= 100 ? 300 : 20));

interface Case {
  sessions: number;
  contentChars: number;
  token: string;
  ownerId: string;
}

interface Result {
  sessions: number;
  contentChars: number;
  requests: number;
  p50Ms: number;
  p95Ms: number;
  p50UsPerSession: number;
}

async function seed(system: EmbeddedSystem, c: Case): Promise<void> {
  // Server-side generation: each row's content is its own md5 repeated to 200,000
  // characters, stored like any transcript (compressed and out of line by TOAST). The
  // preview is what the create endpoint stores: the first 100 characters and '...'.
  await system.platform.db.query(
    `insert into transcript.transcripts
            (owner_id, name, session_timestamp, content, preview, summary, source)
     select $1::uuid, 'Session ' || g, timestamptz '2020-01-01' + g * interval '1 hour',
            case when $3::int > 0 then left(repeat(md5(g::text), $3::int / 32 + 1), $3::int) else '' end,
            case when $3::int > 0 then left(repeat(md5(g::text), 4), 100) || '...' else '' end,
            'The party rests at the inn.', 'manual'
       from generate_series(1, $2::int) g`,
    [c.ownerId, c.sessions, c.contentChars],
  );
}

async function list(url: string, token: string): Promise<{ ms: number; body: Record<string, unknown>[] }> {
  const start = performance.now();
  const res = await fetch(`${url}/api/transcripts`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as Record<string, unknown>[];
  const ms = performance.now() - start;
  if (res.status !== 200)
    throw new Error(`GET /api/transcripts answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, body };
}

export async function benchListLatency(): Promise<void> {
  const started = performance.now();
  const bench = await startBenchSystem();
  const { system, backend } = bench;
  try {
    const cases: Case[] = [];
    for (const sessions of COUNTS) {
      for (const contentChars of [0, CONTENT_CHARS]) {
        const user = await localSignIn(system.url, `bench-${sessions}-${contentChars}`);
        cases.push({ sessions, contentChars, token: user.cookie, ownerId: user.body.user?.id ?? '' });
      }
    }
    const seedStart = performance.now();
    for (const c of cases) await seed(system, c);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const [size] = await system.platform.db.query<{ total: string; content: string }>(
      `select pg_size_pretty(pg_total_relation_size('transcript.transcripts')) as total,
              pg_size_pretty(sum(pg_column_size(content))) as content
         from transcript.transcripts`,
    );
    console.log(
      `\nlist-latency on ${backend}: seeded ${cases.map((c) => c.sessions).reduce((a, b) => a + b, 0)} ` +
        `sessions in ${seedSeconds.toFixed(1)} s; table ${size?.total}, content as stored ${size?.content} ` +
        `(${CONTENT_CHARS.toLocaleString('en-US')} characters per big session before compression)`,
    );

    const results: Result[] = [];
    for (const sessions of COUNTS) {
      const pair = cases.filter((c) => c.sessions === sessions);
      const times = new Map<Case, number[]>(pair.map((c) => [c, []]));
      for (const c of pair) {
        // Warm-up, and a check of what a list is. PGlite's seeding blocks this process's event
        // loop for a while, so a pooled keep-alive socket may be dead by now: retry once.
        const { body } = await list(system.url, c.token).catch(() => list(system.url, c.token));
        // GET /api/transcripts answers one page (LIST_PAGE_DEFAULT sessions) however many there are.
        const page = Math.min(sessions, LIST_PAGE_DEFAULT);
        if (body.length !== page) throw new Error(`expected ${page} sessions, got ${body.length}`);
        if (body.some((item) => 'content' in item)) throw new Error('the list returned transcript content');
      }
      // Alternate the two users so that any drift of the machine hits both alike.
      for (let i = 0; i < requestsFor(sessions); i++) {
        for (const c of pair) times.get(c)!.push((await list(system.url, c.token)).ms);
      }
      for (const c of pair) {
        const t = times.get(c)!.sort((a, b) => a - b);
        const p50 = percentile(t, 50);
        results.push({
          sessions,
          contentChars: c.contentChars,
          requests: t.length,
          p50Ms: p50,
          p95Ms: percentile(t, 95),
          p50UsPerSession: (p50 * 1000) / sessions,
        });
      }
    }
    printTable(`GET /api/transcripts through the gateway (${backend})`, results);
    for (const sessions of COUNTS) {
      const empty = results.find((r) => r.sessions === sessions && r.contentChars === 0)!;
      const big = results.find((r) => r.sessions === sessions && r.contentChars > 0)!;
      console.log(
        `ratio ${CONTENT_CHARS.toLocaleString('en-US')}-character content / empty content, ` +
          `${sessions.toLocaleString('en-US')} sessions: latency per session p50 ` +
          `${(big.p50UsPerSession / empty.p50UsPerSession).toFixed(2)}x, p95 ${(big.p95Ms / empty.p95Ms).toFixed(2)}x`,
      );
    }
    console.log(`list-latency took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await bench.stop();
  }
}

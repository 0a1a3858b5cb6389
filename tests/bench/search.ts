// Search cost: GET /api/search through the gateway for a user with 1,000 and a user with
// 10,000 sessions, side by side in one run. A rare word (said in 5 sessions of each user)
// must cost the same whatever the number of sessions stored: the GIN index finds its few
// entries, and ts_headline runs on one page of single lines. A common word (said in every
// session) ranks every entry it matches before it can cut a page, so it costs O(matches):
// shown beside it for what it is. Sessions have BENCH_SEARCH_CHARS characters of text
// (default 2,000, about 40 lines); `pnpm bench search -- --full` stores 500,000 per session
// (10,000 lines each; seeding that takes hours on PGlite). PostgreSQL when DATABASE_URL is set, else PGlite.
import type { SearchResults } from '@chronicler/contracts';
import type { EmbeddedSystem } from '@chronicler/all-in-one';
import { localSignIn } from '../support/auth.ts';
import { startBenchSystem } from './embedded.ts';
import { percentile, printTable } from './report.ts';

const FULL = process.argv.includes('--full');
const CHARS = FULL ? 500_000 : Number(process.env.BENCH_SEARCH_CHARS ?? 2_000);
/** One line of generated text is about this long ('[00:12:30] LAURA: ...'). */
const LINE_CHARS = 50;
const COUNTS = [
  Number(process.env.BENCH_SEARCH_SMALL ?? 1_000),
  Number(process.env.BENCH_SEARCH_SESSIONS ?? 10_000),
];
const REQUESTS = Number(process.env.BENCH_SEARCH_REQUESTS ?? 30);
const RARE_SESSIONS = 5;
const QUERIES = { rare: 'zanzibar relic', common: 'walking' };

async function seed(system: EmbeddedSystem, ownerId: string, sessions: number): Promise<void> {
  const lines = Math.max(1, Math.floor(CHARS / LINE_CHARS));
  // A few thousand sessions per statement keeps PGlite's memory in bounds.
  for (let first = 1; first <= sessions; first += 2_000) {
    const last = Math.min(sessions, first + 1_999);
    await system.platform.db.query(
      `insert into transcript.transcripts (owner_id, name, session_timestamp, content, source)
       select $1::uuid, 'Session ' || g, timestamptz '2020-01-01' + g * interval '1 hour',
              (select string_agg(
                        format('[%s] %s: we keep walking %s the %s near %s',
                               to_char(make_interval(secs => i * 15), 'HH24:MI:SS'),
                               (array['MATT','LAURA','SAM','TRAVIS'])[1 + i % 4],
                               w[1 + (g * 7 + i) % 12], w[1 + (g * 3 + i * 5) % 12], w[1 + (g + i * 11) % 12]),
                        E'\\n' order by i)
                 from generate_series(0, $4::int - 1) i)
              || case when g % ($2::int / $5::int) = 0 then E'\\n[09:00:00] SAM: The zanzibar relic glows.' else '' end,
              'manual'
         from generate_series($3::int, $6::int) g,
              (select array['past','over','under','beside','toward','around',
                            'castle','river','forest','tavern','dragon','bridge'] as w) words`,
      [ownerId, sessions, first, lines, RARE_SESSIONS, last],
    );
  }
}

async function search(url: string, token: string, q: string): Promise<{ ms: number; body: SearchResults }> {
  const start = performance.now();
  const res = await fetch(`${url}/api/search?q=${encodeURIComponent(q)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await res.json()) as SearchResults;
  const ms = performance.now() - start;
  if (res.status !== 200) throw new Error(`GET /api/search answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, body };
}

export async function benchSearch(): Promise<void> {
  const started = performance.now();
  const bench = await startBenchSystem();
  const { system, backend } = bench;
  try {
    const users = [];
    for (const sessions of COUNTS) {
      const user = await localSignIn(system.url, `search-${sessions}`);
      users.push({ sessions, token: user.cookie, ownerId: user.body.user?.id ?? '' });
    }
    const seedStart = performance.now();
    for (const u of users) await seed(system, u.ownerId, u.sessions);
    const [size] = await system.platform.db.query<{ entries: string; total: string }>(
      `select count(*)::text as entries, pg_size_pretty(pg_total_relation_size('transcript.search_entries')) as total
         from transcript.search_entries`,
    );
    console.log(
      `\nsearch on ${backend}: seeded ${COUNTS.join(' + ')} sessions of ${CHARS.toLocaleString('en-US')} characters ` +
        `in ${((performance.now() - seedStart) / 1000).toFixed(1)} s; ${size?.entries} search entries, ${size?.total}`,
    );
    const results = [];
    for (const [kind, q] of Object.entries(QUERIES)) {
      const times = new Map(users.map((u) => [u, [] as number[]]));
      for (const u of users) {
        // Warm-up, and a check of what a page is (a pooled socket may have died during seeding: retry once).
        const { body } = await search(system.url, u.token, q).catch(() => search(system.url, u.token, q));
        if (kind === 'rare' && body.hits.length !== RARE_SESSIONS)
          throw new Error(`expected ${RARE_SESSIONS} hits for "${q}", got ${body.hits.length}`);
        if (kind === 'common' && (body.hits.length !== 20 || body.next === null))
          throw new Error(`expected a full first page and more for "${q}"`);
      }
      // Alternate the users so that any drift of the machine hits both alike.
      for (let i = 0; i < REQUESTS; i++)
        for (const u of users) times.get(u)!.push((await search(system.url, u.token, q)).ms);
      for (const u of users) {
        const t = times.get(u)!.sort((a, b) => a - b);
        results.push({
          query: `${kind}: ${q}`,
          sessions: u.sessions,
          requests: t.length,
          p50Ms: percentile(t, 50),
          p95Ms: percentile(t, 95),
        });
      }
    }
    printTable(`GET /api/search through the gateway (${backend})`, results);
    for (const kind of Object.keys(QUERIES)) {
      const [small, big] = results.filter((r) => r.query.startsWith(`${kind}:`));
      console.log(
        `ratio ${big!.sessions.toLocaleString('en-US')} / ${small!.sessions.toLocaleString('en-US')} sessions, ` +
          `${kind} word: p50 ${(big!.p50Ms / small!.p50Ms).toFixed(2)}x, p95 ${(big!.p95Ms / small!.p95Ms).toFixed(2)}x`,
      );
    }
    console.log(`search bench took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await bench.stop();
  }
}

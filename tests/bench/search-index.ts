// What keeping the search index costs when a session's text is written (migration 0022): the
// function the transcripts trigger calls, as 0013 wrote it (every line entry deleted and indexed
// again) beside today's (only the entries that differ are written), on the same data, in
// interleaved rounds, in one run:
// - a live session's end: 240 lines (an hour of a busy table), whose entries its lines made
//   as they were stored, and the text the end writes;
// - an edit of one line of a 4-hour session (5,000 lines);
// - a new text of 5,000 lines, nothing indexed yet (it must cost no more than before).
// PostgreSQL when DATABASE_URL is set, else PGlite. `BENCH_ROUNDS` rounds (default 15).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { repoRoot } from '../support/system.ts';
import { median, printTable } from './report.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const LIVE_LINES = 240;
const LONG_LINES = 5_000;
const SPEAKERS = ['MATT', 'LAURA', 'SAM', 'TRAVIS'];
const WORDS = ['castle', 'river', 'forest', 'tavern', 'dragon', 'bridge', 'goblin', 'relic'];

const migrations = path.join(repoRoot, 'services/transcript/migrations');

const clock = (s: number) =>
  [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map((n) => String(n).padStart(2, '0')).join(':');
const said = (i: number, edit = '') =>
  `we walk past the ${WORDS[i % 8]} toward the ${WORDS[(i * 3 + 1) % 8]} and the ${WORDS[(i * 5 + 2) % 8]} ${i}${edit}`;
const textOf = (n: number, edited = -1) =>
  Array.from(
    { length: n },
    (_, i) => `[${clock(i * 3)}] ${SPEAKERS[i % 4]}: ${said(i, i === edited ? ' and a wyvern' : '')}`,
  ).join('\n');

/** The function as migration 0013 made it, beside today's, in the same schema. */
async function defineOld(bed: ServiceTestbed): Promise<void> {
  const sql = readFileSync(path.join(migrations, '0013_search.sql'), 'utf8');
  const fn = /create function search_put_lines\(.*?\n\$\$;/s.exec(sql)?.[0];
  if (!fn) throw new Error('search_put_lines not found in 0013_search.sql');
  await bed.db.query(
    fn
      .replace('create function search_put_lines(', `create function "${bed.schema}".search_put_lines_0013(`)
      .replace('set search_path from current', `set search_path = "${bed.schema}"`),
  );
}

/** An active live session with its lines stored (the lines' trigger indexes each). */
async function liveSession(bed: ServiceTestbed): Promise<string> {
  const id = randomUUID();
  const s = `"${bed.schema}"`;
  await bed.db.query(
    `insert into ${s}.transcripts (id, owner_id, name, status, source) values ($1, $2, 'Live', 'active', 'live')`,
    [id, randomUUID()],
  );
  await bed.db.query(
    `insert into ${s}.transcript_lines
            (transcript_id, seq, utterance_id, speaker_tag, speaker_name, text, start_seconds, end_seconds)
     select $1, i + 1, 'u' || i, '1', ($2::text[])[1 + i % 4], t, i * 3, i * 3 + 2
       from unnest($3::text[]) with ordinality as x(t, o), lateral (select (o - 1)::int as i) n`,
    [id, SPEAKERS, Array.from({ length: LIVE_LINES }, (_, i) => said(i))],
  );
  return id;
}

/** A session with no text yet. */
async function emptySession(bed: ServiceTestbed): Promise<string> {
  const id = randomUUID();
  await bed.db.query(
    `insert into "${bed.schema}".transcripts (id, owner_id, name, source) values ($1, $2, 'New', 'manual')`,
    [id, randomUUID()],
  );
  return id;
}

async function timed(bed: ServiceTestbed, fn: string, id: string, content: string): Promise<number> {
  const start = performance.now();
  await bed.db.query(`select "${bed.schema}".${fn}($1, $2)`, [id, content]);
  return performance.now() - start;
}

export async function benchSearchIndex(): Promise<void> {
  const url = process.env.DATABASE_URL;
  const bed = await openServiceTestbed({
    schema: 'transcript',
    migrationsDir: migrations,
    ...(url ? { url } : {}),
  });
  try {
    await defineOld(bed);
    const fns = ['search_put_lines_0013', 'search_put_lines'] as const;
    const live = textOf(LIVE_LINES);
    // One 4-hour session for each function, indexed once before the rounds.
    const long: string[] = [];
    for (const _ of fns) {
      const id = randomUUID();
      await bed.db.query(
        `insert into "${bed.schema}".transcripts (id, owner_id, name, content, source) values ($1, $2, 'Long', $3, 'manual')`,
        [id, randomUUID(), textOf(LONG_LINES)],
      );
      long.push(id);
    }
    const ms: Record<string, number[]> = {};
    const add = (k: string, v: number) => (ms[k] ??= []).push(v);
    console.log(
      `search-index: ${ROUNDS} interleaved rounds, ${url ? 'PostgreSQL' : 'PGlite'}; a live end of ${LIVE_LINES} lines, one edited line of ${LONG_LINES}`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const fn of round % 2 ? [...fns].reverse() : fns) {
        add(`end ${fn}`, await timed(bed, fn, await liveSession(bed), live));
        // Each round edits another line, and the next round's text undoes it.
        const edited = textOf(LONG_LINES, round % 2 ? -1 : 1_000 + round * 97);
        add(`edit ${fn}`, await timed(bed, fn, long[fns.indexOf(fn)]!, edited));
        // A new session's text, nothing indexed yet (an upload, a paste).
        add(`new ${fn}`, await timed(bed, fn, await emptySession(bed), textOf(LONG_LINES)));
      }
    }
    const row = (what: string, label: string) => {
      const old = median(ms[`${what} search_put_lines_0013`]!);
      const now = median(ms[`${what} search_put_lines`]!);
      return { what: label, 'as 0013 (ms)': old, 'now (ms)': now, 'now / 0013': now / old };
    };
    printTable('search index kept on a content write (median of the rounds)', [
      row('end', `live end, ${LIVE_LINES} lines`),
      row('edit', `one line edited of ${LONG_LINES}`),
      row('new', `a new text of ${LONG_LINES} lines`),
    ]);
  } finally {
    await bed.close();
  }
}

import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LiveSessionEnd, LiveUtterance } from '@chronicler/contracts';
import { createLogger, EventOutbox } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveStore } from './live-store.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

let bed: ServiceTestbed;
let store: LiveStore;
let outbox: EventOutbox;

// In cluster mode on PostgreSQL: only a server runs two statements at once (the lock race below).
const url = process.env.CHRONICLER_TEST_MODE === 'cluster' ? process.env.DATABASE_URL : undefined;

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'transcript', migrationsDir, ...(url ? { url } : {}) });
  outbox = new EventOutbox({
    db: bed.db,
    schema: bed.schema,
    bus: bed.bus,
    logger: createLogger(null, { level: 'silent' }),
  });
  store = new LiveStore(bed.db, bed.schema, outbox);
});
afterAll(async () => {
  await bed?.close();
});

async function session(): Promise<string> {
  const id = randomUUID();
  await store.start({
    transcript_id: id,
    owner_id: randomUUID(),
    started_at: new Date().toISOString(),
    origin: 'replay',
  });
  return id;
}

const final = (id: string, n: number, utterance = `u-${n}`): LiveUtterance => ({
  transcript_id: id,
  utterance_id: utterance,
  text: `Line ${n}`,
  speaker_tag: 1,
  start_seconds: n,
  end_seconds: n + 0.5,
  final_index: n,
});

const endOf = (id: string, finals: number): LiveSessionEnd => ({
  transcript_id: id,
  ended_at: new Date().toISOString(),
  final_count: finals,
  interim_count: 0,
});

/** Makes the session's last line look stored `seconds` ago. */
async function age(id: string, seconds: number): Promise<void> {
  await bed.db.query(
    `update "${bed.schema}".live_sessions set last_line_at = now() - make_interval(secs => $2) where transcript_id = $1`,
    [id, seconds],
  );
}

const seqsOf = async (id: string) => {
  const view = await joinAll(id);
  return view.lines.map((l) => [l.seq, l.lost ? 'lost' : l.text]);
};
async function joinAll(id: string) {
  const [row] = await bed.db.query<{ owner_id: string }>(
    `select owner_id from "${bed.schema}".live_sessions where transcript_id = $1`,
    [id],
  );
  return (await store.join(String(row!.owner_id), id, 0, 1000))!;
}
const contentOf = async (id: string) =>
  (
    await bed.db.query<{ content: string; status: string }>(
      `select content, status from "${bed.schema}".transcripts where id = $1`,
      [id],
    )
  )[0]!;

describe('live finals are stored at their place the moment they arrive', () => {
  it('stores finals delivered in reverse order at once and reads them in spoken order', async () => {
    const id = await session();
    for (const n of [5, 4, 3, 2, 1]) {
      const r = await store.append(final(id, n));
      expect(r.kind === 'stored' && r.line.seq).toBe(n);
    }
    expect(await seqsOf(id)).toEqual([1, 2, 3, 4, 5].map((n) => [n, `Line ${n}`]));
    expect((await store.end(endOf(id, 5))).kind).toBe('ended');
    expect((await contentOf(id)).content.split('\n')).toEqual([
      '[00:00:01] 1: Line 1',
      '[00:00:02] 1: Line 2',
      '[00:00:03] 1: Line 3',
      '[00:00:04] 1: Line 4',
      '[00:00:05] 1: Line 5',
    ]);
  });

  it('stores a final past a gap without waiting, and the late one fills the gap', async () => {
    const id = await session();
    await store.append(final(id, 1));
    const third = await store.append(final(id, 3));
    expect(third).toMatchObject({
      kind: 'stored',
      line: { seq: 3 },
      session: { finalCount: 3, lineCount: 2 },
    });
    const second = await store.append(final(id, 2));
    expect(second).toMatchObject({
      kind: 'stored',
      line: { seq: 2 },
      session: { finalCount: 3, lineCount: 3 },
    });
    // A redelivery answers the stored line and counts nothing twice.
    expect(await store.append(final(id, 2))).toMatchObject({ kind: 'duplicate', line: { seq: 2 } });
    expect(await seqsOf(id)).toEqual([
      [1, 'Line 1'],
      [2, 'Line 2'],
      [3, 'Line 3'],
    ]);
  });

  it('keeps an end that came before its last finals, and says when it is due', async () => {
    const id = await session();
    await store.append(final(id, 1));
    expect(await store.end(endOf(id, 3))).toEqual({ kind: 'waiting', stored: 1, expected: 3 });
    expect((await contentOf(id)).status).toBe('active');
    const third = await store.append(final(id, 3));
    expect(third.kind === 'stored' && LiveStore.endDue(third.session)).toBe(false);
    const second = await store.append(final(id, 2));
    expect(second.kind === 'stored' && LiveStore.endDue(second.session)).toBe(true);
    const ended = await store.end(second.kind === 'stored' ? second.session.pendingEnd! : endOf(id, 3));
    expect(ended).toMatchObject({ kind: 'ended', session: { finalCount: 3, lineCount: 3 } });
    expect((await contentOf(id)).content).toContain('Line 2');
  });

  it('closes a gap older than the bound as lost, with a marker, and carries out the kept end', async () => {
    const id = await session();
    await store.append(final(id, 1));
    await store.append(final(id, 3));
    await store.end(endOf(id, 5));
    // Not yet: the gap is fresh.
    expect((await store.closeGaps(30)).filter((c) => c.session.transcriptId === id)).toEqual([]);
    await age(id, 31);
    const [closed] = (await store.closeGaps(30)).filter((c) => c.session.transcriptId === id);
    expect(closed!.markers.map((m) => [m.seq, m.lost, m.text])).toEqual([
      [2, true, ''],
      [4, true, ''],
      [5, true, ''],
    ]);
    expect(closed!.end).toMatchObject({ kind: 'ended' });
    expect(await seqsOf(id)).toEqual([
      [1, 'Line 1'],
      [2, 'lost'],
      [3, 'Line 3'],
      [4, 'lost'],
      [5, 'lost'],
    ]);
    // The markers are not speech: the transcript's text holds only what was said.
    expect((await contentOf(id)).content.split('\n')).toEqual([
      '[00:00:01] 1: Line 1',
      '[00:00:03] 1: Line 3',
    ]);
    // A final that comes after all takes its marker's place, and the text is rebuilt in order.
    const late = await store.append(final(id, 2));
    expect(late).toMatchObject({ kind: 'stored', line: { seq: 2, text: 'Line 2' } });
    expect(late.kind === 'stored' && late.line.lost).toBeUndefined();
    expect((await contentOf(id)).content.split('\n')).toEqual([
      '[00:00:01] 1: Line 1',
      '[00:00:02] 1: Line 2',
      '[00:00:03] 1: Line 3',
    ]);
  });

  it('puts a final whose place another utterance holds after the others, losing nothing', async () => {
    const id = await session();
    await store.append(final(id, 1));
    const other = await store.append(final(id, 1, 'u-other'));
    expect(other).toMatchObject({ kind: 'stored', line: { seq: 2, utterance_id: 'u-other' } });
  });

  it('serialises finals of one session that arrive together', async () => {
    const id = await session();
    const results = await Promise.all([3, 1, 2, 5, 4].map((n) => store.append(final(id, n))));
    expect(results.every((r) => r.kind === 'stored')).toBe(true);
    const view = await joinAll(id);
    expect(view.session).toMatchObject({ finalCount: 5, lineCount: 5 });
    expect(view.lines.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe("a live session's search entries", () => {
  /** The session's line entries, each with the transaction that last wrote its row. */
  const entries = async (id: string) =>
    bed.db.query<{ ord: number; seconds: number | null; body: string; written: string }>(
      `select ord, seconds, body, xmin::text as written from "${bed.schema}".search_entries
        where transcript_id = $1 and kind = 3 order by ord`,
      [id],
    );
  const withoutWrites = (rows: Awaited<ReturnType<typeof entries>>) =>
    rows.map(({ ord, seconds, body }) => ({ ord: Number(ord), seconds: Number(seconds), body }));

  it('are made as its lines are stored, and its end keeps them instead of indexing its text again', async () => {
    const id = await session();
    await store.append(final(id, 1));
    await store.append({ ...final(id, 2), speaker_info: { displayName: 'Vex', user_id: 'u-vex' } });
    await store.append({ ...final(id, 3), start_seconds: 3725.6 });
    const live = await entries(id);
    expect(withoutWrites(live)).toEqual([
      { ord: 0, seconds: 1, body: '1: Line 1' },
      { ord: 1, seconds: 2, body: 'Vex: Line 2' },
      { ord: 2, seconds: 3725, body: '1: Line 3' },
    ]);
    expect(await store.end(endOf(id, 3))).toMatchObject({ kind: 'ended' });
    expect((await contentOf(id)).content).toContain('[01:02:05] 1: Line 3');
    // The same rows, not one of them written again (each would have cost its tsvector).
    expect(await entries(id)).toEqual(live);
  });

  it('follow the text where it differs from them: only those rows are written', async () => {
    const id = await session();
    await store.append(final(id, 1));
    await store.append(final(id, 3));
    await store.append(final(id, 4));
    await store.end(endOf(id, 4));
    await age(id, 31);
    await store.closeGaps(30);
    // Line 2 was lost: the text has three lines, so Line 3 and Line 4 move up one place.
    const after = await entries(id);
    expect(withoutWrites(after)).toEqual([
      { ord: 0, seconds: 1, body: '1: Line 1' },
      { ord: 1, seconds: 3, body: '1: Line 3' },
      { ord: 2, seconds: 4, body: '1: Line 4' },
    ]);
    const written = new Set(after.map((e) => e.written));
    // The first line's entry stayed as it was stored; the moved ones were written by the end.
    expect(written.size).toBe(2);
    expect(after[1]!.written).toBe(after[2]!.written);
    expect(after[0]!.written).not.toBe(after[1]!.written);
  });
});

import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LiveUtterance } from '@chronicler/contracts';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveStore, STALL_SECONDS } from './live-store.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

let bed: ServiceTestbed;
let store: LiveStore;

// In cluster mode on PostgreSQL: only a server runs two statements at once (the lock race below).
const url = process.env.CHRONICLER_TEST_MODE === 'cluster' ? process.env.DATABASE_URL : undefined;

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'transcript', migrationsDir, ...(url ? { url } : {}) });
  store = new LiveStore(bed.db, bed.schema);
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

const final = (id: string, n: number): LiveUtterance => ({
  transcript_id: id,
  utterance_id: `u-${n}`,
  text: `Line ${n}`,
  speaker_tag: 1,
  start_seconds: n,
  end_seconds: n + 0.5,
  final_index: n,
});

/** Makes the session's last line look stored `seconds` ago. */
async function age(id: string, seconds: number): Promise<void> {
  await bed.db.query(
    `update "${bed.schema}".live_sessions set last_line_at = now() - make_interval(secs => $2) where transcript_id = $1`,
    [id, seconds],
  );
}

describe('live finals keep the order they were spoken', () => {
  it('stores finals that arrive out of order only once those before them are stored', async () => {
    const id = await session();
    expect((await store.append(final(id, 1))).kind).toBe('stored');
    expect(await store.append(final(id, 3))).toEqual({ kind: 'out-of-order', stored: 1 });
    const second = await store.append(final(id, 2));
    expect(second.kind === 'stored' && second.line.seq).toBe(2);
    const third = await store.append(final(id, 3));
    expect(third.kind === 'stored' && third.line.seq).toBe(3);
  });

  it('lets a waiting final go on without the missing one only once the session has stalled', async () => {
    const id = await session();
    await store.append(final(id, 1));
    // Out of patience, but a line was stored just now: the backlog is still draining.
    expect((await store.append(final(id, 3), true)).kind).toBe('out-of-order');
    await age(id, STALL_SECONDS + 1);
    expect((await store.append(final(id, 3), false)).kind).toBe('out-of-order');
    const forced = await store.append(final(id, 3), true);
    expect(forced.kind === 'stored' && forced.line.text).toBe('Line 3');
  });

  it('holds the end while finals still arrive, and ends a stalled session without the lost ones', async () => {
    const id = await session();
    await store.append(final(id, 1));
    const end = { transcript_id: id, ended_at: new Date().toISOString(), final_count: 2, interim_count: 0 };
    expect(await store.end(end, false)).toEqual({ kind: 'waiting', stored: 1, expected: 2 });
    expect((await store.end(end, true)).kind).toBe('waiting');
    await age(id, STALL_SECONDS + 1);
    expect((await store.end(end, true)).kind).toBe('ended');
  });

  it('does not take a draining backlog for a stall when it waited for the line just stored', async () => {
    // Finals 2 and 3 were late (the session looks stalled); 4 is out of patience. While 2 is
    // being stored, 4 queues for the session's row lock. Once it has the lock, a line was
    // stored just now: the backlog is draining, and 4 must wait for 3. A CI run once stored a
    // final ahead of two earlier ones: the waiting statement's snapshot of the lines predated
    // the line it waited for, so the session looked stalled.
    const id = await session();
    await store.append(final(id, 1));
    await age(id, STALL_SECONDS + 1);
    let forced: Promise<Awaited<ReturnType<LiveStore['append']>>> | undefined;
    await bed.db.transaction(async (tx) => {
      await tx.query(`select 1 from "${bed.schema}".live_sessions where transcript_id = $1 for update`, [id]);
      forced = store.append(final(id, 4), true);
      // Long enough for the append to take its snapshot and queue for the lock.
      await new Promise((r) => setTimeout(r, 300));
      await tx.query(
        `insert into "${bed.schema}".transcript_lines
                (transcript_id, seq, utterance_id, speaker_tag, text, start_seconds, end_seconds)
         values ($1, 2, 'u-2', '1'::jsonb, 'Line 2', 2, 2.5)`,
        [id],
      );
      await tx.query(
        `update "${bed.schema}".live_sessions set final_count = 2, last_line_at = now() where transcript_id = $1`,
        [id],
      );
    });
    expect(await forced).toEqual({ kind: 'out-of-order', stored: 2 });
    const third = await store.append(final(id, 3));
    expect(third.kind === 'stored' && third.line.seq).toBe(3);
    const fourth = await store.append(final(id, 4));
    expect(fourth.kind === 'stored' && fourth.line).toMatchObject({ seq: 4, text: 'Line 4' });
  });
});

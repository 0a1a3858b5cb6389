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

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'transcript', migrationsDir });
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

/** Makes the session's lines look stored `seconds` ago. */
async function age(id: string, seconds: number): Promise<void> {
  await bed.db.query(
    `update "${bed.schema}".transcript_lines set stored_at = now() - make_interval(secs => $2) where transcript_id = $1`,
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
});

import { liveSubject } from '@chronicler/contracts';
import type { Bus, Logger } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PrepStore } from '../db/prep-store.ts';
import { onLivePrep, untrackedSessions } from './live-prep.ts';

/** A store that counts its reads; it tracks no session (none of its sessions has a campaign). */
function countingStore() {
  const reads = { session: 0, open: 0 };
  const store = {
    session: async () => {
      reads.session++;
      return null;
    },
    open: async () => {
      reads.open++;
      return [];
    },
    sessionEnded: async () => {},
  } as unknown as PrepStore;
  return { store, reads };
}

const final = (transcriptId: string, i: number) => ({
  transcript_id: transcriptId,
  utterance_id: `u${i}`,
  text: `line ${i}`,
  speaker_tag: 'GM',
  start_seconds: i,
  end_seconds: i + 1,
  final_index: i,
  is_final: true,
});

const bus = {} as Bus;
const logger = { info() {}, warn() {} } as unknown as Logger;

describe('live prep consumer', () => {
  it('reads a session without a campaign from the store once, not for every final', async () => {
    const { store, reads } = countingStore();
    const handle = onLivePrep(store, bus, logger);
    const id = randomUUID();
    for (let i = 1; i <= 50; i++) await handle(final(id, i), { subject: liveSubject.final(id) });
    expect(reads.session).toBe(1);
    expect(reads.open).toBe(0);
  });

  it('reads none for a session whose start said it has no campaign', async () => {
    const { store, reads } = countingStore();
    const handle = onLivePrep(store, bus, logger);
    const id = randomUUID();
    await handle(
      { transcript_id: id, owner_id: 'u1', started_at: new Date().toISOString(), origin: 'replay' },
      { subject: liveSubject.start(id) },
    );
    for (let i = 1; i <= 5; i++) await handle(final(id, i), { subject: liveSubject.final(id) });
    expect(reads.session).toBe(0);
  });

  it('asks again after a minute (a final that overtook its start on another replica)', async () => {
    let now = 0;
    const untracked = untrackedSessions(() => now);
    const { store, reads } = countingStore();
    const handle = onLivePrep(store, bus, logger, untracked);
    const id = randomUUID();
    await handle(final(id, 1), { subject: liveSubject.final(id) });
    now += 30_000;
    await handle(final(id, 2), { subject: liveSubject.final(id) });
    expect(reads.session).toBe(1);
    now += 31_000;
    await handle(final(id, 3), { subject: liveSubject.final(id) });
    expect(reads.session).toBe(2);
  });

  it('remembers a bounded number of sessions, forgetting the oldest', () => {
    const untracked = untrackedSessions(() => 0);
    const first = randomUUID();
    untracked.add(first);
    for (let i = 0; i < 10_000; i++) untracked.add(randomUUID());
    expect(untracked.size).toBe(10_000);
    expect(untracked.has(first)).toBe(false);
  });
});

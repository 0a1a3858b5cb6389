import { finalDelivery, type LiveLine } from '@chronicler/contracts';
import { describe, expect, it } from 'vitest';
import { HeldSession, type JoinPage } from './held-session.ts';

const START = '2026-01-01T00:00:00.000Z';
const line = (seq: number): LiveLine => ({
  seq,
  utterance_id: `u-${seq}`,
  text: `line ${seq}`,
  speaker_tag: 1,
  start_seconds: seq,
  end_seconds: seq + 0.5,
  timestamp: new Date(Date.parse(START) + seq * 1000).toISOString(),
});
const page = (lines: LiveLine[], more = false): JoinPage => ({
  transcript_id: 't',
  session_start_time: START,
  status: 'active',
  name: 'n',
  last_seq: lines.at(-1)?.seq ?? 0,
  lines,
  more,
});

describe('HeldSession', () => {
  it('answers a storm of joins of one viewer with one read, and a later place from a read that was not cut', async () => {
    let reads = 0;
    let now = 0;
    const held = new HeldSession(
      't',
      {
        read: async (_owner, after) => {
          reads++;
          return page([line(1), line(2), line(3)].filter((l) => l.seq > after));
        },
        window: async () => [],
      },
      () => now,
    );
    const pages = await Promise.all(Array.from({ length: 100 }, () => held.read('owner', 0)));
    expect(reads).toBe(1);
    expect(pages.every((p) => p.lines.length === 3)).toBe(true);
    expect((await held.read('owner', 2)).lines.map((l) => l.seq)).toEqual([3]);
    expect(reads).toBe(1);
    // Another owner is never answered from the first one's read (its own owner check).
    await held.read('other', 0);
    expect(reads).toBe(2);
    now += 1_000;
    await held.read('owner', 0);
    expect(reads).toBe(3);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const held = new HeldSession('t', {
      read: async () => {
        if (fail) throw new Error('no reply');
        return page([line(1)]);
      },
      window: async () => [],
    });
    await expect(held.read('owner', 0)).rejects.toThrow('no reply');
    fail = false;
    expect((await held.read('owner', 0)).lines).toHaveLength(1);
  });

  it("gives the lines after a place from live-fanout's window and what it heard, once each, in order; asks again for a window not read", async () => {
    let windows = 0;
    let answer: LiveLine[] | null = null;
    const held = new HeldSession('t', {
      read: async () => page([]),
      window: async () => {
        windows++;
        return answer;
      },
    });
    held.heard(finalDelivery('t', START, line(5)));
    expect((await held.recentAfter(0)).map((l) => l.seq)).toEqual([5]);
    answer = [line(3), line(4), line(5)];
    expect((await held.recentAfter(3)).map((l) => l.seq)).toEqual([4, 5]);
    expect(await held.recentAfter(0)).toHaveLength(3);
    expect(windows).toBe(2);
  });
});

import { describe, expect, it } from 'vitest';
import { closeInSlices } from './drain.ts';

describe('closeInSlices', () => {
  it('closes the sockets a slice at a time, spread over the drain, every one of them once', async () => {
    const closedAt: number[] = [];
    let now = 0;
    const items = Array.from({ length: 95 }, () => ({ close: () => closedAt.push(now) }));
    const waits: number[] = [];
    await closeInSlices(items, {
      slices: 10,
      overMs: 9_000,
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
      },
    });
    expect(closedAt).toHaveLength(95);
    expect(waits).toEqual(Array(9).fill(1_000));
    // No moment where every viewer reconnects at once: at most a tenth closed at a time.
    const perMoment = new Map<number, number>();
    for (const t of closedAt) perMoment.set(t, (perMoment.get(t) ?? 0) + 1);
    expect(Math.max(...perMoment.values())).toBeLessThanOrEqual(10);
    expect(closedAt.at(-1)).toBe(9_000);
  });

  it('closes a few sockets one by one, and none without waiting', async () => {
    const waits: number[] = [];
    const closed: number[] = [];
    await closeInSlices([{ close: () => closed.push(1) }, { close: () => closed.push(2) }], {
      slices: 10,
      overMs: 1_000,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(closed).toEqual([1, 2]);
    expect(waits).toEqual([1_000]);
    await closeInSlices([], { slices: 10, overMs: 1_000, sleep: async (ms) => void waits.push(ms) });
    expect(waits).toEqual([1_000]);
  });
});

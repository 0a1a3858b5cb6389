import { describe, expect, it } from 'vitest';
import { pacedSlots, type PaceClock } from './paced-slots.ts';

/** A clock the jobs move, and the rests asked of it (each released by hand). */
function clock(): PaceClock & { advance(ms: number): void; rests: { ms: number; end: () => void }[] } {
  let t = 0;
  const rests: { ms: number; end: () => void }[] = [];
  return {
    now: () => t,
    advance: (ms) => (t += ms),
    sleep: (ms) => new Promise<void>((end) => rests.push({ ms, end })),
    rests,
  };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('paced slots', () => {
  it('runs at most `slots` jobs at once; a slot rests after its job before the next takes it', async () => {
    const c = clock();
    const run = pacedSlots(2, 2, { maxRestMs: 1000, clock: c });
    const started: string[] = [];
    const job = (name: string, ms: number) => async () => {
      started.push(name);
      c.advance(ms);
      return name;
    };
    let waited = 0;
    const results = ['a', 'b', 'c'].map((n) => run(job(n, 10), () => waited++));
    await flush();
    // a and b ran and answered at once; c waits for a slot. The clock is shared, as wall time
    // is: a's job spanned 0-20 ms (b's ran inside it) and rests 40, b's 10-20 ms and rests 20.
    expect(started).toEqual(['a', 'b']);
    await expect(results[0]).resolves.toBe('a');
    await expect(results[1]).resolves.toBe('b');
    expect(waited).toBe(1);
    expect(c.rests.map((r) => r.ms)).toEqual([40, 20]);
    c.rests[0]!.end();
    await flush();
    expect(started).toEqual(['a', 'b', 'c']);
    await expect(results[2]).resolves.toBe('c');
  });

  it('frees the slot after a failed job too, and a job that took no time frees it at once', async () => {
    const c = clock();
    const run = pacedSlots(1, 2, { maxRestMs: 1000, clock: c });
    const failed = run(async () => {
      c.advance(5);
      throw new Error('database down');
    });
    await expect(failed).rejects.toThrow('database down');
    expect(c.rests.map((r) => r.ms)).toEqual([10]);
    c.rests[0]!.end();
    await flush();
    await expect(run(async () => 'instant')).resolves.toBe('instant');
    // No rest asked: the next job runs without waiting.
    await expect(run(async () => 'next')).resolves.toBe('next');
    expect(c.rests).toHaveLength(1);
  });

  it('never rests longer than maxRestMs', async () => {
    const c = clock();
    const run = pacedSlots(1, 2, { maxRestMs: 2000, clock: c });
    await run(async () => c.advance(60_000));
    expect(c.rests.map((r) => r.ms)).toEqual([2000]);
    let second = false;
    const next = run(async () => (second = true));
    await flush();
    expect(second).toBe(false);
    c.rests[0]!.end();
    await next;
    expect(second).toBe(true);
  });

  it('rests on a timer that does not keep the process alive', async () => {
    const run = pacedSlots(1, 1_000, { maxRestMs: 60_000 });
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await run(async () => {
      await new Promise((r) => setTimeout(r, 5));
    });
    // A rest of up to a minute is pending, and the process holds no timer for it.
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(before);
  });
});

import { describe, expect, it } from 'vitest';
import { pacedSlots, type Clock } from './paced-slots.ts';

/** A clock the jobs move, and the rests asked of it (each released by hand). */
function clock(): Clock & { advance(ms: number): void; rests: { ms: number; end: () => void }[] } {
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
    const run = pacedSlots(2, 2, c);
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
    const run = pacedSlots(1, 2, c);
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
});

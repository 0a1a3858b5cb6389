import { describe, expect, it } from 'vitest';
import { paced, PACE_MAX_REST_MS } from './paced.ts';

/** A clock the jobs move, and the rests asked of it (each released by hand). */
function clock() {
  let t = 0;
  const rests: { ms: number; release: () => void }[] = [];
  return {
    now: () => t,
    advance: (ms: number) => (t += ms),
    sleep: (ms: number) => new Promise<void>((release) => rests.push({ ms, release })),
    rests,
  };
}

const flush = () => new Promise((r) => setImmediate(r));

describe('paced background work', () => {
  it('rests after a job for `rest` times as long as it took, holding its slot until then', async () => {
    const c = clock();
    const done: string[] = [];
    const job = paced(
      async (name: string, ms: number) => {
        c.advance(ms);
        done.push(name);
      },
      2,
      c,
    );
    let settled = false;
    const run = job('first', 30).then(() => (settled = true));
    await flush();
    // The job is done (its result stored); the slot rests 60 ms before it takes the next.
    expect(done).toEqual(['first']);
    expect(c.rests.map((r) => r.ms)).toEqual([60]);
    expect(settled).toBe(false);
    c.rests[0]!.release();
    await run;
    expect(settled).toBe(true);
  });

  it('rests after a failed job too, then fails with its error', async () => {
    const c = clock();
    const job = paced(
      async () => {
        c.advance(5);
        throw new Error('model down');
      },
      2,
      c,
    );
    const run = job();
    await flush();
    expect(c.rests.map((r) => r.ms)).toEqual([10]);
    c.rests[0]!.release();
    await expect(run).rejects.toThrow('model down');
  });

  it('never rests longer than PACE_MAX_REST_MS, and not at all after an instant job', async () => {
    const c = clock();
    const job = paced(
      async (ms: number) => {
        c.advance(ms);
      },
      2,
      c,
    );
    await job(0);
    const long = job(60_000);
    await flush();
    expect(c.rests.map((r) => r.ms)).toEqual([PACE_MAX_REST_MS]);
    c.rests[0]!.release();
    await long;
  });
});

import { setTimeout as sleep } from 'node:timers/promises';

/** How often `waiting` is called again while a job waits for a slot. */
const WAITING_BEAT_MS = 2_000;

export interface PaceClock {
  now(): number;
  /** Resolves after `ms`; the real one does not keep the process alive for it. */
  sleep(ms: number): Promise<unknown>;
}

/** Wall time; a rest's timer is unref'd, so a stopping process never waits for one. */
const realClock: PaceClock = {
  now: () => performance.now(),
  sleep: (ms) => sleep(ms, undefined, { ref: false }),
};

export interface PacedSlotsOptions {
  /** The longest a slot rests after one job (a job that waited a minute on a model needs no such rest). */
  maxRestMs: number;
  clock?: PaceClock;
}

/**
 * Work that leaves room for what is more urgent: at most `slots` jobs at a time, and a slot
 * rests `rest` times as long as its last job took (at most `maxRestMs`) before the next job
 * takes it. A burst (200 sessions ending within a second: their closes in the transcript
 * service, their summaries and codex readings in the summary service) then takes at most
 * 1 / (1 + rest) of each slot's time, and so of the time of the services and of PostgreSQL those
 * jobs ask for, instead of all it can get while lines are still flowing to viewers. The caller
 * has its job's result as soon as the job is done: the rest only delays the jobs behind it, and
 * a lone job is not delayed at all. `waiting` is called while a job waits for a slot (a durable
 * consumer extends the message's ack deadline with it).
 */
export function pacedSlots(slots: number, rest: number, opts: PacedSlotsOptions) {
  const clock = opts.clock ?? realClock;
  let free = slots;
  const queue: (() => void)[] = [];
  const release = (): void => {
    const next = queue.shift();
    if (next) next();
    else free++;
  };
  return async function run<T>(job: () => Promise<T>, waiting?: () => void): Promise<T> {
    if (free > 0) free--;
    else {
      waiting?.();
      const beat = waiting && setInterval(waiting, WAITING_BEAT_MS);
      try {
        await new Promise<void>((resolve) => queue.push(resolve));
      } finally {
        clearInterval(beat);
      }
    }
    const started = clock.now();
    try {
      return await job();
    } finally {
      const ms = Math.min(opts.maxRestMs, (clock.now() - started) * rest);
      if (ms >= 1) void clock.sleep(ms).then(release);
      else release();
    }
  };
}

import { setTimeout as sleep } from 'node:timers/promises';

/** The longest a slot rests after one job. */
const MAX_REST_MS = 1_000;
/** How often `waiting` is called again while a job waits for a slot. */
const WAITING_BEAT_MS = 2_000;

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

const realClock: Clock = { now: () => performance.now(), sleep };

/**
 * Work that may wait its turn: at most `slots` jobs at a time, and a slot rests `rest` times as
 * long as its last job took (at most MAX_REST_MS) before the next job takes it. The caller has
 * its job's result as soon as the job is done: the rest only delays the jobs behind it. 200
 * sessions ending within a second then close a few at a time, each slot busy a third of the
 * time (rest 2), instead of taking every core (this service's, PostgreSQL's and the bus's)
 * from the lines of the sessions still live. `waiting` is called while a job waits for a slot
 * (the consumer extends the message's ack deadline with it).
 */
export function pacedSlots(slots: number, rest: number, clock: Clock = realClock) {
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
      const ms = Math.min(MAX_REST_MS, (clock.now() - started) * rest);
      if (ms >= 1) void clock.sleep(ms).then(release);
      else release();
    }
  };
}

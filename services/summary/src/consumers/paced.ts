import { setTimeout as sleep } from 'node:timers/promises';

/** The longest rest after one job: a job that waited a minute on a model needs none that long. */
export const PACE_MAX_REST_MS = 2_000;

/**
 * Background work that leaves room: after each job the consumer's slot rests `rest` times as
 * long as the job took (at most PACE_MAX_REST_MS) before it takes the next message. A burst of
 * jobs (200 sessions ending within a second, each asking for its summary and its codex
 * reading) then takes at most 1 / (1 + rest) of the time of each slot, and so of the
 * transcript service's and PostgreSQL's time those jobs ask for, instead of all it can get
 * while lines are still flowing to viewers. A lone job is not delayed: the rest comes after
 * it, with its result stored. The rest holds the message's ack, so the consumer's ackWait must
 * allow the job and its rest.
 */
export function paced<A extends unknown[]>(
  job: (...args: A) => Promise<void>,
  rest: number,
  clock: { now(): number; sleep(ms: number): Promise<unknown> } = {
    now: () => performance.now(),
    sleep,
  },
): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const started = clock.now();
    try {
      await job(...args);
    } finally {
      const ms = Math.min(PACE_MAX_REST_MS, (clock.now() - started) * rest);
      if (ms >= 1) await clock.sleep(ms);
    }
  };
}

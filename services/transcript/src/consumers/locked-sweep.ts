import type { Coordination, Logger } from '@chronicler/kit';

/**
 * Runs `sweep` every `everyMs` on one replica at a time: whoever takes the lock sweeps and
 * keeps it until the next sweep is due, so the others skip that turn. A sweep still running
 * when the next is due is not started twice. Failures are logged as `failed` and tried again
 * at the next turn.
 */
export function lockedSweep(opts: {
  coord: Coordination;
  lockKey: string;
  everyMs: number;
  sweep: () => Promise<unknown>;
  log: Logger;
  failed: string;
}): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void (async () => {
      const lock = await opts.coord.locks.acquire(opts.lockKey, Math.max(50, opts.everyMs - 50));
      if (!lock) return;
      await opts.sweep();
    })()
      .catch((err: unknown) => opts.log.warn({ err }, opts.failed))
      .finally(() => {
        running = false;
      });
  }, opts.everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

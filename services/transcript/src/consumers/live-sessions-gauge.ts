import { liveSessionsActive, type Logger } from '@chronicler/kit';
import type { LiveStore } from '../db/live-store.ts';

/** How often the open live sessions are counted: one cheap aggregate per replica. */
const EVERY_MS = 5_000;

/**
 * Keeps chronicler_live_sessions_active at the number of open live sessions in the store.
 * Counted from the table rather than by start and end events, so a replica that starts late
 * or missed an event still reports the truth, and every replica reports the same number.
 */
export function startLiveSessionsGauge(store: LiveStore, logger: Logger): { stop(): void } {
  let counting = false;
  const count = async (): Promise<void> => {
    if (counting) return;
    counting = true;
    try {
      liveSessionsActive.set(await store.openCount());
    } catch (err) {
      logger.debug({ err }, 'could not count the open live sessions');
    } finally {
      counting = false;
    }
  };
  void count();
  const timer = setInterval(() => void count(), EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

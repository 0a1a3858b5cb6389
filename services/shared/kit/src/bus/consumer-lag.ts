import type { JetStreamManager } from 'nats';
import type { Logger } from '../logger.ts';
import { busConsumerPending } from '../ops/metrics.ts';

/** How often a consumer's process asks JetStream for its backlog. */
const CONSUMER_LAG_POLL_MS = 5_000;

/**
 * Keeps chronicler_bus_consumer_pending current for one durable consumer: JetStream's
 * num_pending (messages the durable has not been handed yet), read from the consumer info
 * every few seconds. A timer of its own, off the delivery path: a pull or an ack never waits
 * for it, and a failed lookup (server restarting) only leaves the last value in place.
 * Every process consuming the durable reports the same number: dashboards take the max.
 */
export function watchConsumerLag(opts: {
  jsm: () => Promise<JetStreamManager>;
  /** Names on the server (with the bus prefix). */
  stream: string;
  durable: string;
  /** Names in metrics (without it, as the other bus metrics are labelled). */
  labels: { stream: string; durable: string };
  log: Logger;
  everyMs?: number;
}): { stop(): void } {
  let polling = false;
  let stopped = false;
  const poll = async (): Promise<void> => {
    if (polling || stopped) return;
    polling = true;
    try {
      const info = await (await opts.jsm()).consumers.info(opts.stream, opts.durable);
      if (!stopped) busConsumerPending.set(opts.labels, info.num_pending);
    } catch (err) {
      opts.log.debug({ err }, 'could not read the consumer backlog');
    } finally {
      polling = false;
    }
  };
  void poll();
  const timer = setInterval(() => void poll(), opts.everyMs ?? CONSUMER_LAG_POLL_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      // This process no longer consumes it: another one (or none) reports it now.
      busConsumerPending.remove(opts.labels);
    },
  };
}

import type { Logger } from '../logger.ts';

/**
 * Runs `stop` once on SIGTERM/SIGINT and exits. A second signal, or a stop that takes
 * longer than `graceMs`, forces the exit so a stuck dependency cannot keep a pod around.
 */
export function onShutdownSignal(stop: () => Promise<void>, log: Logger, graceMs = 15_000): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      log.error({ graceMs }, 'shutdown took too long, exiting');
      process.exit(1);
    }, graceMs);
    force.unref();
    stop().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

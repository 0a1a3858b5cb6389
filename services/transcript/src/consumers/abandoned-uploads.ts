import { AUDIO_BLOB_BUCKET } from '@chronicler/contracts';
import type { Bus, Logger } from '@chronicler/kit';

/**
 * An upload writes steadily (the client's request ends after 5 minutes at most); one that has
 * written nothing for this long belongs to a gateway that died in the middle of it.
 */
const ABANDONED_UPLOAD_IDLE_MS = 10 * 60 * 1000;
const SWEEP_EVERY_MS = 10 * 60 * 1000;

/**
 * Removes what uploads cut short by a crash (kill -9) left in the recordings' bucket, which
 * otherwise keeps it for the 7 days of a retry: once at start, then every ten minutes, so a
 * leftover goes within twenty. In embedded mode the one gateway is this process, which has
 * just started: no upload can be under way, and the start takes every leftover whatever its
 * age (`startIdleMs` 0). Any replica may sweep; a removal is idempotent.
 */
export async function startAbandonedUploadSweep(
  bus: Bus,
  logger: Logger,
  opts: { startIdleMs?: number; idleMs?: number; everyMs?: number } = {},
): Promise<{ stop(): void; sweep(): Promise<number> }> {
  const idleMs = opts.idleMs ?? ABANDONED_UPLOAD_IDLE_MS;
  const sweep = async (idle = idleMs): Promise<number> => {
    const removed = await bus.blobs.removeAbandoned(AUDIO_BLOB_BUCKET, idle);
    if (removed > 0) logger.info({ removed }, 'removed partial uploads');
    return removed;
  };
  const run = (idle?: number) =>
    sweep(idle).catch((err: unknown) => logger.warn({ err }, 'partial upload sweep failed'));
  await run(opts.startIdleMs ?? idleMs);
  const timer = setInterval(() => void run(), opts.everyMs ?? SWEEP_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer), sweep: () => sweep() };
}

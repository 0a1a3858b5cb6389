import { SESSION_AUDIO_BUCKET } from '@chronicler/contracts';
import type { Bus, Coordination, Logger } from '@chronicler/kit';
import type { AudioStore } from '../db/audio-store.ts';
import { lockedSweep } from './locked-sweep.ts';

const LOCK_KEY = 'transcript:audio-retention';
const EVERY_MS = 10 * 60_000;
const BATCH = 100;

/**
 * Deletes kept recordings past their owner's retention (audio_settings), on one replica at a
 * time, every ten minutes: the blob first, then the session forgets it, so a failed delete
 * is tried again at the next sweep rather than leaving a blob nothing points at.
 */
export function startAudioRetentionSweep(opts: {
  bus: Bus;
  coord: Coordination;
  audio: AudioStore;
  logger: Logger;
}): { stop(): void; sweep(): Promise<number> } {
  const log = opts.logger.child({ component: 'audio-retention' });
  async function sweep(): Promise<number> {
    let removed = 0;
    for (const r of await opts.audio.expired(BATCH)) {
      await opts.bus.blobs.delete(SESSION_AUDIO_BUCKET, r.blob);
      await opts.audio.forget(r.owner_id, r.id, r.blob);
      removed++;
    }
    if (removed) log.info({ removed }, 'recordings past their retention deleted');
    return removed;
  }
  const timer = lockedSweep({
    coord: opts.coord,
    lockKey: LOCK_KEY,
    everyMs: EVERY_MS,
    sweep,
    log,
    failed: 'audio retention sweep failed',
  });
  return { stop: timer.stop, sweep };
}

import { AUDIO_BLOB_BUCKET, SESSION_AUDIO_BUCKET, type AudioUploadJob } from '@chronicler/contracts';
import type { Bus, Logger } from '@chronicler/kit';
import type { AudioStore } from '../db/audio-store.ts';

/**
 * Copies a transcribed upload into the session's kept audio (SESSION_AUDIO_BUCKET, named by
 * the session's id), streamed, never whole in memory. True when the upload may go: kept, or
 * its session is gone. False (the upload stays, within its bucket's retention) when keeping
 * failed: a recording is dropped only once it is safe elsewhere.
 */
export async function keepRecording(
  deps: { bus: Bus; audio: AudioStore; logger: Logger },
  job: AudioUploadJob,
): Promise<boolean> {
  const { bus, audio, logger } = deps;
  try {
    const source = await bus.blobs.get(AUDIO_BLOB_BUCKET, job.blob);
    if (!source) return true;
    const stored = await bus.blobs.put(SESSION_AUDIO_BUCKET, job.transcript_id, source);
    const kept = await audio.keep(job.owner_id, job.transcript_id, {
      blob: job.transcript_id,
      size: stored.size,
      format: job.format,
    });
    // Deleted while it was copied: its recording goes too.
    if (!kept) await bus.blobs.delete(SESSION_AUDIO_BUCKET, job.transcript_id);
    return true;
  } catch (err) {
    logger.warn({ err, transcriptId: job.transcript_id }, 'could not keep the recording; the upload stays');
    return false;
  }
}

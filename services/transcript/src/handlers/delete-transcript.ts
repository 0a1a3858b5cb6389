import { AUDIO_BLOB_BUCKET, SESSION_AUDIO_BUCKET } from '@chronicler/contracts';
import type { Bus, Logger } from '@chronicler/kit';
import type { AudioStore } from '../db/audio-store.ts';
import type { TranscriptStore } from '../db/store.ts';
import { bad, transcriptNotFound } from '../validation.ts';

/**
 * svc.transcript.delete: an active (recording) session cannot be deleted. The recording a
 * failed audio session kept for another try goes with it, and so does the recordings kept for playing (an upload's, or each speaker's track).
 */
export const deleteTranscript =
  (store: TranscriptStore, bus: Bus, logger?: Logger, audio?: AudioStore) =>
  async (req: { owner_id: string; id: string }): Promise<{ ok: true }> => {
    const kept = await audio?.kept(req.owner_id, req.id);
    const tracks = (await audio?.tracksOf(req.owner_id, req.id)) ?? [];
    const r = await store.deleteEnded(req.owner_id, req.id);
    // The rows went with the session (on delete cascade); their blobs go now.
    const blobs = r.outcome === 'deleted' ? [...(kept ? [kept] : []), ...tracks].map((k) => k.blob) : [];
    for (const blob of blobs) {
      await bus.blobs.delete(SESSION_AUDIO_BUCKET, blob).catch((err: unknown) => {
        logger?.error(
          { err, transcriptId: req.id },
          'could not delete the kept recording of a deleted session',
        );
        return false;
      });
    }
    if (r.outcome === 'missing') throw transcriptNotFound();
    if (r.outcome === 'active') throw bad('Cannot delete an active session. Stop the recording first.');
    if (r.outcome === 'deleted' && r.audioBlob) {
      await bus.blobs.delete(AUDIO_BLOB_BUCKET, r.audioBlob).catch((err: unknown) => {
        // The upload bucket's retention removes it later.
        logger?.warn({ err, transcriptId: req.id }, 'could not delete the recording of a deleted session');
        return false;
      });
    }
    return { ok: true };
  };

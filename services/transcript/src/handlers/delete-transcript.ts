import type { TranscriptStore } from '../db/store.ts';
import { bad, transcriptNotFound } from '../validation.ts';

/** svc.transcript.delete: an active (recording) session cannot be deleted. */
export const deleteTranscript =
  (store: TranscriptStore) =>
  async (req: { owner_id: string; id: string }): Promise<{ ok: true }> => {
    const outcome = await store.deleteEnded(req.owner_id, req.id);
    if (outcome === 'missing') throw transcriptNotFound();
    if (outcome === 'active') throw bad('Cannot delete an active session. Stop the recording first.');
    return { ok: true };
  };

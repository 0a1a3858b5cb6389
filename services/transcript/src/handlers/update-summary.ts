import {
  SUMMARY_MAX,
  tooLongMessage,
  type RpcRequest,
  type TranscriptListItem,
  type updateTranscriptSummaryRpc,
} from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import type { TranscriptStore } from '../db/store.ts';
import { assertNoNul, bad, transcriptNotFound } from '../validation.ts';

/**
 * svc.transcript.update-summary: the summary edited on the transcript viewer, with the
 * viewer's messages (they differ from the session form's). A session being recorded has
 * no summary yet, so editing one is refused until the recording stops.
 */
export const updateSummary =
  (store: TranscriptStore) =>
  async (req: RpcRequest<typeof updateTranscriptSummaryRpc>): Promise<TranscriptListItem> => {
    if (!(await store.getItem(req.owner_id, req.id))) throw transcriptNotFound();
    const summary = (req.summary ?? '').trim();
    if (!summary) throw bad('Summary content cannot be empty.');
    if (summary.length > SUMMARY_MAX) throw bad(tooLongMessage('Summary', SUMMARY_MAX));
    assertNoNul(summary, 'Summary');
    const outcome = await store.updateSummary(req.owner_id, req.id, summary);
    if (outcome === 'missing') throw transcriptNotFound();
    if (outcome === 'active') {
      throw new ServiceError(
        'conflict',
        'Cannot edit the summary while the session is being recorded. Stop the recording first.',
      );
    }
    return outcome;
  };

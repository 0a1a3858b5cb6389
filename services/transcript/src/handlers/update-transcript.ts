import type { RpcRequest, TranscriptListItem, updateTranscriptRpc } from '@chronicler/contracts';
import type { TranscriptStore } from '../db/store.ts';
import {
  checkName,
  checkSummary,
  checkTranscript,
  parseSessionDate,
  previewOf,
  transcriptNotFound,
} from '../validation.ts';

/** svc.transcript.update: name and summary always; date and transcript only when sent. */
export const updateTranscript =
  (store: TranscriptStore) =>
  async (req: RpcRequest<typeof updateTranscriptRpc>): Promise<TranscriptListItem> => {
    if (!(await store.getItem(req.owner_id, req.id))) throw transcriptNotFound();
    const name = checkName(req.name, 'Session name is required');
    const summary = req.summary ?? '';
    checkSummary(summary);
    const sessionTimestamp = req.session_date === undefined ? undefined : parseSessionDate(req.session_date);
    const content = req.transcript;
    if (content !== undefined) checkTranscript(content);
    const updated = await store.update(req.owner_id, req.id, {
      name,
      summary,
      sessionTimestamp,
      content,
      preview: content === undefined ? undefined : previewOf(content),
    });
    if (!updated) throw transcriptNotFound();
    return updated;
  };

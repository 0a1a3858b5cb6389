import type { renameTranscriptRpc, RpcRequest, TranscriptListItem } from '@chronicler/contracts';
import type { TranscriptStore } from '../db/store.ts';
import { checkName, transcriptNotFound } from '../validation.ts';

/** svc.transcript.rename */
export const renameTranscript =
  (store: TranscriptStore) =>
  async (req: RpcRequest<typeof renameTranscriptRpc>): Promise<TranscriptListItem> => {
    if (!(await store.getItem(req.owner_id, req.id))) throw transcriptNotFound();
    const name = checkName(req.name, 'Transcript name cannot be empty.');
    const updated = await store.rename(req.owner_id, req.id, name);
    if (!updated) throw transcriptNotFound();
    return updated;
  };

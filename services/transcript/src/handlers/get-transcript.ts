import type { getTranscriptRpc, RpcResponse } from '@chronicler/contracts';
import type { TranscriptStore } from '../db/store.ts';
import { transcriptNotFound } from '../validation.ts';

/** svc.transcript.get: one session with its content (the kit's call/serve carry any size). */
export const getTranscript =
  (store: TranscriptStore) =>
  async (req: { owner_id: string; id: string }): Promise<RpcResponse<typeof getTranscriptRpc>> => {
    const t = await store.get(req.owner_id, req.id);
    if (!t) throw transcriptNotFound();
    return t;
  };

import type { getTranscriptRpc, RpcResponse } from '@chronicler/contracts';
import type { LiveStore } from '../db/live-store.ts';
import type { TranscriptStore } from '../db/store.ts';
import { transcriptNotFound } from '../validation.ts';

/**
 * svc.transcript.get: one session with its content (the kit's call/serve carry any size).
 * A live session being recorded reads its content from the lines stored so far.
 */
export const getTranscript =
  (store: TranscriptStore, live: LiveStore) =>
  async (req: { owner_id: string; id: string }): Promise<RpcResponse<typeof getTranscriptRpc>> => {
    const t = await store.get(req.owner_id, req.id);
    if (!t) throw transcriptNotFound();
    if (t.status === 'active' && t.source === 'live')
      return { ...t, content: (await live.contentSoFar(t.id)) ?? '' };
    return t;
  };

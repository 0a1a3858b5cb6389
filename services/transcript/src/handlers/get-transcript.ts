import {
  applySpeakerNames,
  type getTranscriptRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import type { LiveStore } from '../db/live-store.ts';
import type { SpeakerNameStore } from '../db/speaker-names.ts';
import type { TranscriptStore } from '../db/store.ts';
import { rawSession } from '../tools/session-lines.ts';

/**
 * svc.transcript.get: one session with its content (the kit's call/serve carry any size).
 * A live session being recorded reads its content from the lines stored so far. The content
 * shows the speakers' display names unless `raw` asks for the stored labels.
 */
export const getTranscript =
  (store: TranscriptStore, live: LiveStore, names: SpeakerNameStore) =>
  async (req: RpcRequest<typeof getTranscriptRpc>): Promise<RpcResponse<typeof getTranscriptRpc>> => {
    const t = await rawSession(store, live, req.owner_id, req.id);
    if (req.raw) return t;
    const named = new Map([...(await names.map(t.id)).values()].map((n) => [n.label, n.name]));
    return named.size ? { ...t, content: applySpeakerNames(t.content, named) } : t;
  };

import type { RpcRequest, RpcResponse, sessionAudioRpc } from '@chronicler/contracts';
import { MIME_BY_FORMAT, type AudioFormat } from '@chronicler/speech';
import type { AudioStore } from '../db/audio-store.ts';
import { transcriptNotFound } from '../validation.ts';

/** svc.transcript.session-audio: the kept tracks of one of the owner's sessions ([] when none). */
export const sessionAudio =
  (audio: AudioStore) =>
  async (req: RpcRequest<typeof sessionAudioRpc>): Promise<RpcResponse<typeof sessionAudioRpc>> => {
    const kept = await audio.kept(req.owner_id, req.id);
    if (kept) {
      const contentType = MIME_BY_FORMAT[kept.format as AudioFormat] ?? 'application/octet-stream';
      return [{ speaker: null, ...kept, content_type: contentType }];
    }
    if (!(await audio.owns(req.owner_id, req.id))) throw transcriptNotFound();
    return [];
  };

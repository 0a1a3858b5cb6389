import {
  applySpeakerNames,
  type getTranscriptIfChangedRpc,
  type getTranscriptRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import type { LiveStore } from '../db/live-store.ts';
import type { SpeakerNameStore } from '../db/speaker-names.ts';
import type { TranscriptStore } from '../db/store.ts';
import { rawSession } from '../tools/session-lines.ts';
import { transcriptNotFound } from '../validation.ts';

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

/**
 * svc.transcript.get-if-changed: what GET /transcripts/{id} shows (stored labels), with the
 * version it is; `unchanged` when the caller already holds that version. Only a recorded
 * session's row changes what this shows: its lines so far are read, never versioned.
 */
export const getTranscriptIfChanged =
  (store: TranscriptStore, live: LiveStore) =>
  async (
    req: RpcRequest<typeof getTranscriptIfChangedRpc>,
  ): Promise<RpcResponse<typeof getTranscriptIfChangedRpc>> => {
    if (req.known !== undefined) {
      const now = await store.version(req.owner_id, req.id);
      if (!now) throw transcriptNotFound();
      if (now.version !== null && now.version === req.known) return { version: now.version, unchanged: true };
    }
    const read = await store.getVersioned(req.owner_id, req.id);
    if (!read) throw transcriptNotFound();
    const { transcript: t, version } = read;
    // Key order: the version first, so that the caller finds the transcript's text after it.
    if (version === null)
      return { version, transcript: { ...t, content: (await live.contentSoFar(t.id)) ?? '' } };
    return { version, transcript: t };
  };

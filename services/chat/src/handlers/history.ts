import { getTranscriptRpc, TRANSCRIPT_BLOB_BUCKET, type ChatMessage } from '@chronicler/contracts';
import { call, type Bus } from '@chronicler/kit';
import type { ChatStore } from '../db/store.ts';

/** What the socket shows on connect: enough turns to read back, small enough for one bus message. */
export const HISTORY_SHOWN = { limit: 200, maxChars: 256 * 1024 };

/** svc.chat.history: the owner's conversation about one of their transcripts (not_found for any other). */
export const chatHistory =
  (store: ChatStore, bus: Bus) =>
  async (req: { owner_id: string; transcript_id: string }): Promise<{ messages: ChatMessage[] }> => {
    // Asking the transcript service first keeps another user's transcript a 404, history or not.
    await call(bus, getTranscriptRpc, { owner_id: req.owner_id, id: req.transcript_id }).then((t) =>
      // The content came through the blob store only because it was large; it is not needed here.
      t.content_blob ? bus.blobs.delete(TRANSCRIPT_BLOB_BUCKET, t.content_blob).catch(() => false) : false,
    );
    return { messages: await store.recent(req.owner_id, req.transcript_id, HISTORY_SHOWN) };
  };

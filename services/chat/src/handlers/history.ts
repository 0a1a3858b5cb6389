import { transcriptExistsRpc, type ChatMessage } from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { ChatStore } from '../db/store.ts';

/**
 * What the socket shows on connect, however long the conversation (storage keeps all of it):
 * the most recent 100 messages, and of those no more than 256 Ki characters counted back from
 * the newest (which is always shown), so one frame stays small.
 */
export const HISTORY_SHOWN = { limit: 100, maxChars: 256 * 1024 };

/** svc.chat.history: the owner's conversation about one of their transcripts (not_found for any other). */
export const chatHistory =
  (store: ChatStore, bus: Bus) =>
  async (req: { owner_id: string; transcript_id: string }): Promise<{ messages: ChatMessage[] }> => {
    // Asking the transcript service first keeps another user's transcript a 404, history or not.
    const { exists } = await call(bus, transcriptExistsRpc, {
      owner_id: req.owner_id,
      id: req.transcript_id,
    });
    if (!exists) throw new ServiceError('not_found', 'Transcript not found');
    return { messages: await store.recent(req.owner_id, req.transcript_id, HISTORY_SHOWN) };
  };

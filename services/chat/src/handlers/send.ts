import type { ChatMessage } from '@chronicler/contracts';
import type { ChatStore } from '../db/store.ts';
import { checkQuestion } from './chat-errors.ts';
import { HISTORY_SHOWN } from './history.ts';
import { reply, type ChatDeps } from './reply.ts';

/**
 * svc.chat.send: answers a question with the stored conversation as context, then stores the
 * question and the answer together. A question that gets no answer (bad input, another user's
 * transcript, rate limit, model down) leaves the conversation as it was, so the history never
 * shows a question the model never saw answered.
 */
export const chatSend =
  (store: ChatStore, deps: ChatDeps) =>
  async (req: {
    owner_id: string;
    transcript_id: string;
    content: string;
  }): Promise<{ message: ChatMessage }> => {
    const question = checkQuestion(req.content);
    const history = await store.recent(req.owner_id, req.transcript_id, HISTORY_SHOWN);
    const answer = await reply(deps, {
      ownerId: req.owner_id,
      transcriptId: req.transcript_id,
      history,
      question,
    });
    const message: ChatMessage = { role: 'assistant', content: answer };
    await store.append(req.owner_id, req.transcript_id, [{ role: 'user', content: question }, message]);
    return { message };
  };

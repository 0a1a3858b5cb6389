import type { ChatMessage } from '@chronicler/contracts';
import { bad, checkQuestion } from './chat-errors.ts';
import { reply, type ChatDeps } from './reply.ts';

/**
 * svc.chat.answer (POST /chat): the client holds the conversation and sends all of it; the
 * last message is the question. Nothing is stored.
 */
export const chatAnswer =
  (deps: ChatDeps) =>
  async (req: {
    owner_id: string;
    transcript_id: string;
    messages: ChatMessage[];
    temperature?: number;
  }): Promise<{ response: string }> => {
    const last = req.messages.at(-1);
    if (!last || last.role !== 'user') throw bad('The last message must be a user message');
    const question = checkQuestion(last.content);
    // System turns on the client are its own notices ('Error: ...'); they were never the
    // model's words and must not steer it, so only user and assistant turns are history.
    const history = req.messages.slice(0, -1).filter((m) => m.role !== 'system');
    const response = await reply(deps, {
      ownerId: req.owner_id,
      transcriptId: req.transcript_id,
      history,
      question,
      temperature: req.temperature,
    });
    return { response };
  };

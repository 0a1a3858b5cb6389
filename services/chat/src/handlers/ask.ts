import { groupCharacters, linkCampaignCitations, passageCitations } from '@chronicler/ai';
import {
  ASK_QUESTION_EMPTY,
  ASK_QUESTION_MAX_CHARS,
  ASK_QUESTION_TOO_LONG,
  getGroupRpc,
  type AskAnswer,
  type chatAskRpc,
  type RpcRequest,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { aiFailure, bad } from './chat-errors.ts';
import { findPassages } from './find-passages.ts';
import type { ChatDeps } from './reply.ts';

const NO_SESSIONS = 'This campaign has no sessions yet, so there is nothing to answer from.';

/** A question to a campaign, trimmed; blank, over-long or NUL-carrying ones are refused in words. */
function checkAskQuestion(question: string): string {
  const trimmed = question.trim();
  if (!trimmed) throw bad(ASK_QUESTION_EMPTY);
  if (trimmed.length > ASK_QUESTION_MAX_CHARS) throw bad(ASK_QUESTION_TOO_LONG);
  if (trimmed.includes('\u0000')) throw bad('Question cannot contain NUL characters');
  return trimmed;
}

/**
 * svc.chat.ask (POST /api/groups/{id}/ask): a question across every session of one of the
 * owner's campaigns, answered from the passages the transcript service finds: quoted offline,
 * in words with a model, with the moments cited. Nothing is stored.
 */
export const chatAsk =
  (deps: ChatDeps) =>
  async (req: RpcRequest<typeof chatAskRpc>): Promise<AskAnswer> => {
    const question = checkAskQuestion(req.question);
    // Another user's campaign is the group service's not_found ('Group not found').
    const group = await call(deps.bus, getGroupRpc, { owner_id: req.owner_id, id: req.group_id });
    const found = await findPassages(deps.bus, deps.engine, {
      ownerId: req.owner_id,
      question,
      history: [],
      scope: { groupId: group.id },
    });
    // Nothing to answer from: said at once, without a model request the user would pay for.
    if (found.sessions.length === 0) return { answer: NO_SESSIONS, citations: [] };
    const characters = await groupCharacters(deps.bus, req.owner_id, group.id);
    let text: string;
    try {
      text = await deps.engine.answer(
        { userId: req.owner_id, type: 'chat' },
        { name: group.name, scope: 'campaign', found, history: [], question, characters },
      );
    } catch (err) {
      throw aiFailure(err);
    }
    text = text.replaceAll('\u0000', '');
    // Offline, the quoted passages are the moments; a model's answer cites its own.
    if (deps.engine.kind === 'offline') return { answer: text, citations: passageCitations(found) };
    return linkCampaignCitations(text, found);
  };

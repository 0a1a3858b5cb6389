import { groupCharacters, linkCitations, type AiEngine } from '@chronicler/ai';
import { CHAT_DEFAULT_TEMPERATURE, CHAT_HISTORY_TURNS, type ChatMessage } from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import { aiFailure } from './chat-errors.ts';
import { findPassages } from './find-passages.ts';

export interface ChatDeps {
  bus: Bus;
  engine: AiEngine;
}

/**
 * The answer to `question` about one of the owner's transcripts, given the conversation so far,
 * from the passages the transcript service finds for it (never the whole transcript per turn).
 */
export async function reply(
  deps: ChatDeps,
  req: {
    ownerId: string;
    transcriptId: string;
    history: ChatMessage[];
    question: string;
    temperature?: number;
  },
): Promise<string> {
  const history = req.history.slice(-CHAT_HISTORY_TURNS);
  const found = await findPassages(deps.bus, deps.engine, {
    ownerId: req.ownerId,
    question: req.question,
    history,
    scope: { transcriptId: req.transcriptId },
  });
  const session = found.sessions[0]!;
  // Players speak, questions name characters: the group's map links the two.
  const characters = await groupCharacters(deps.bus, req.ownerId, session.group_id);
  try {
    const answer = await deps.engine.answer(
      { userId: req.ownerId, type: 'chat', transcriptId: req.transcriptId },
      {
        name: session.name,
        scope: 'session',
        found,
        history,
        question: req.question,
        temperature: req.temperature ?? CHAT_DEFAULT_TEMPERATURE,
        characters,
      },
    );
    // Cited times become links to the moment; stored as PostgreSQL text, which cannot hold NUL.
    return linkCitations(answer, req.transcriptId, found).replaceAll('\u0000', '');
  } catch (err) {
    throw aiFailure(err);
  }
}

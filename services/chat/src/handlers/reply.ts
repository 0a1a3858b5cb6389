import { groupCharacters, linkCitations, type AiEngine } from '@chronicler/ai';
import { CHAT_DEFAULT_TEMPERATURE, CHAT_HISTORY_TURNS, type ChatMessage } from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import { aiFailure } from './chat-errors.ts';
import { transcriptText } from './transcript-text.ts';

export interface ChatDeps {
  bus: Bus;
  engine: AiEngine;
}

/** The model's answer to `question` about one of the owner's transcripts, given the conversation so far. */
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
  const transcript = await transcriptText(deps.bus, req.ownerId, req.transcriptId);
  // Players speak, questions name characters: the group's map links the two.
  const characters = await groupCharacters(deps.bus, req.ownerId, transcript.groupId);
  try {
    const answer = await deps.engine.answer(
      { userId: req.ownerId, type: 'chat' },
      {
        transcriptName: transcript.name,
        transcript: transcript.text,
        history: req.history.slice(-CHAT_HISTORY_TURNS),
        question: req.question,
        temperature: req.temperature ?? CHAT_DEFAULT_TEMPERATURE,
        characters,
      },
    );
    // Cited times become links to the moment; stored as PostgreSQL text, which cannot hold NUL.
    return linkCitations(answer, req.transcriptId, transcript.text).replaceAll('\u0000', '');
  } catch (err) {
    throw aiFailure(err);
  }
}

import type { AiEngine, FoundPassages } from '@chronicler/ai';
import { passagesRpc, retrievalQuery, RUNS_THE_GAME, type ChatMessage } from '@chronicler/contracts';
import { call, type Bus } from '@chronicler/kit';

/** A question goes to the transcript service with up to this many earlier questions' words. */
const EARLIER_QUESTIONS = 2;

/**
 * What answers a question, found where the sessions live: the transcript service searches its
 * full-text index and answers with passages only (a session that fits a model whole, whole), so
 * no question moves whole transcripts over the bus. How much to ask for is the engine's plan.
 * Another user's session is the transcript service's not_found.
 */
export async function findPassages(
  bus: Bus,
  engine: AiEngine,
  req: {
    ownerId: string;
    question: string;
    history: ChatMessage[];
    scope: { transcriptId: string } | { groupId: string };
  },
): Promise<FoundPassages> {
  const session = 'transcriptId' in req.scope;
  const plan = engine.retrievalPlan({
    question: req.question,
    history: req.history,
    scope: session ? 'session' : 'campaign',
  });
  const earlier = req.history
    .filter((m) => m.role === 'user')
    .slice(-EARLIER_QUESTIONS)
    .map((m) => m.content);
  return call(bus, passagesRpc, {
    owner_id: req.ownerId,
    q: retrievalQuery(req.question, earlier).slice(0, passagesRpc.request.properties.q.maxLength),
    ...('transcriptId' in req.scope
      ? { transcript_id: req.scope.transcriptId }
      : { group_id: req.scope.groupId }),
    limit: plan.limit,
    max_chars: plan.maxChars,
    ...(plan.wholeWithin !== undefined ? { whole_within: plan.wholeWithin } : {}),
    speakers: session && RUNS_THE_GAME.test(req.question),
  });
}

import {
  setGeneratedSummaryRpc,
  setSummaryStatusRpc,
  type GeneratedSummary,
  type RpcRequest,
  type generateSessionSummaryRpc,
} from '@chronicler/contracts';
import type { AiEngine } from '@chronicler/ai';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import { asServiceError } from '../errors.ts';
import { readTranscript, type TranscriptWithContent } from '../sources.ts';

export const EMPTY_TRANSCRIPT = 'Cannot generate a summary: the transcript is empty.';
export const ACTIVE_SESSION =
  'Cannot generate a summary while the session is being recorded. Stop the recording first.';

/**
 * Summarises one session and stores it with 'done', or leaves 'failed' behind when the engine
 * fails, so the session cards can tell. Shared by the button and the automatic summary.
 */
export async function summarizeAndStore(
  bus: Bus,
  engine: AiEngine,
  ownerId: string,
  t: TranscriptWithContent,
): Promise<GeneratedSummary> {
  await call(bus, setSummaryStatusRpc, { owner_id: ownerId, id: t.id, status: 'generating' });
  let text: string;
  try {
    text = await engine.summarizeSession(
      { userId: ownerId, type: 'session_summary' },
      { name: t.name, transcript: t.content },
    );
  } catch (err) {
    await call(bus, setSummaryStatusRpc, { owner_id: ownerId, id: t.id, status: 'failed' });
    throw asServiceError(err);
  }
  const stored = await call(
    bus,
    setGeneratedSummaryRpc,
    { owner_id: ownerId, id: t.id, summary: text, llm_summary: text },
    { timeoutMs: 30_000 },
  );
  return { id: stored.id, summary: stored.summary };
}

/** svc.summary.generate-session: the viewer's 'Generate Summary' and 'Regenerate'. */
export const generateSession =
  (bus: Bus, engine: AiEngine) =>
  async (req: RpcRequest<typeof generateSessionSummaryRpc>): Promise<GeneratedSummary> => {
    const t = await readTranscript(bus, req.owner_id, req.id);
    if (t.status === 'active') throw new ServiceError('conflict', ACTIVE_SESSION);
    if (!t.content.trim()) throw new ServiceError('bad_request', EMPTY_TRANSCRIPT);
    return summarizeAndStore(bus, engine, req.owner_id, t);
  };

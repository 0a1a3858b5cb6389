import {
  setGeneratedSummaryRpc,
  setSummaryStatusRpc,
  type GeneratedSummary,
  type RpcRequest,
  type generateSessionSummaryRpc,
} from '@chronicler/contracts';
import { AiRateLimitedError, groupCharacters, type AiEngine } from '@chronicler/ai';
import { call, ServiceError, type Bus, type Logger } from '@chronicler/kit';
import { campaignContext, type CodexSource } from '../campaign-context.ts';
import { asServiceError } from '../errors.ts';
import { recapVersion, type RecapOnce } from '../recap-once.ts';
import { readTranscript, type TranscriptWithContent } from '../sources.ts';

/** What a session summary needs: the bus, the engine, and the store of recaps made. */
export interface SessionSummaryDeps {
  bus: Bus;
  engine: AiEngine;
  recaps: RecapOnce;
  logger: Logger;
  /** The campaign codex's names and threads, for a model's recap (the group service's by default). */
  codex?: CodexSource;
}

const EMPTY_TRANSCRIPT = 'Cannot generate a summary: the transcript is empty.';
const ACTIVE_SESSION =
  'Cannot generate a summary while the session is being recorded. Stop the recording first.';

/**
 * Summarises one session and stores it with 'done', or leaves 'failed' behind when the engine
 * fails, so the session cards can tell. Shared by the button and the automatic summary; a
 * version of the content already recapped (or being recapped) is not sent to the model again.
 */
export async function summarizeAndStore(
  { bus, engine, recaps, logger, codex }: SessionSummaryDeps,
  ownerId: string,
  t: TranscriptWithContent,
  opts: { automatic?: boolean; retry?: RateLimitRetry } = {},
): Promise<GeneratedSummary> {
  await call(bus, setSummaryStatusRpc, { owner_id: ownerId, id: t.id, status: 'generating' });
  let text: string;
  try {
    const ctx = {
      userId: ownerId,
      type: 'session_summary' as const,
      transcriptId: t.id,
      automatic: opts.automatic,
    };
    const characters = await groupCharacters(bus, ownerId, t.group_id);
    // A model writes knowing the campaign; the offline digest quotes the session alone.
    const campaign =
      engine.kind === 'openai' ? await campaignContext(bus, ownerId, t, characters, codex) : undefined;
    const input = { id: t.id, name: t.name, transcript: t.content, characters, campaign };
    const make = () =>
      opts.retry
        ? withRateLimitRetry(() => engine.summarizeSession(ctx, input), opts.retry)
        : engine.summarizeSession(ctx, input);
    text = await recaps.get(ownerId, t.id, recapVersion(engine.model, t, characters, campaign), make);
  } catch (err) {
    await call(bus, setSummaryStatusRpc, { owner_id: ownerId, id: t.id, status: 'failed' });
    throw asServiceError(err, logger.child({ transcript_id: t.id }));
  }
  const stored = await call(
    bus,
    setGeneratedSummaryRpc,
    { owner_id: ownerId, id: t.id, summary: text, llm_summary: text },
    { timeoutMs: 30_000 },
  );
  return { id: stored.id, summary: stored.summary };
}

/** How an automatic summary waits when it meets the user's AI rate limit. */
export interface RateLimitRetry {
  /** Tries after the first (default 6). */
  attempts?: number;
  /** First wait when the limit gives no hint (default 2 s), doubled each time, capped at 60 s. */
  baseMs?: number;
  /** Called before each wait (a durable consumer heartbeats so the message is not redelivered). */
  onWait?: (ms: number) => void;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Runs `work`, and when it meets the AI rate limit waits (the limit's own retry-after, at least
 * an exponential backoff with jitter) and tries again, instead of failing a bulk import's
 * summaries. Other errors, and the limit after the last attempt, are thrown.
 */
export async function withRateLimitRetry<T>(work: () => Promise<T>, retry: RateLimitRetry): Promise<T> {
  const attempts = retry.attempts ?? 6;
  const base = retry.baseMs ?? 2_000;
  const sleep = retry.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!(err instanceof AiRateLimitedError) || attempt >= attempts) throw err;
      const backoff = Math.min(60_000, base * 2 ** attempt);
      const ms = Math.max(err.retryAfterMs, backoff) + Math.floor(Math.random() * 250);
      retry.onWait?.(ms);
      await sleep(ms);
    }
  }
}

/** svc.summary.generate-session: the viewer's 'Generate Summary' and 'Regenerate'. */
export const generateSession =
  (deps: SessionSummaryDeps) =>
  async (req: RpcRequest<typeof generateSessionSummaryRpc>): Promise<GeneratedSummary> => {
    const t = await readTranscript(deps.bus, req.owner_id, req.id);
    if (t.status === 'active') throw new ServiceError('conflict', ACTIVE_SESSION);
    if (!t.content.trim()) throw new ServiceError('bad_request', EMPTY_TRANSCRIPT);
    return summarizeAndStore(deps, req.owner_id, t);
  };

/**
 * The built-in fallback used when no model is configured: it writes nothing of its own. A
 * session gets a digest (key moments quoted with their times, people and places by how often
 * and how they are named, questions left open), a campaign one built from its sessions'
 * summaries, chat the transcript passages that best match the question, planning the open
 * threads of the sessions. Every text starts with the offline marker, for the app's notice.
 * Requests a user makes count against the same per-user rate limit (automatic ones do not: they
 * cost nothing); each is recorded in the usage ledger (model 'offline', cost 0) so usage
 * numbers stay true.
 */
import type { AiConfig } from '../config.ts';
import type { AiDeps } from '../engine.ts';
import type {
  AiEngine,
  AiRequestContext,
  AnswerInput,
  CampaignSummaryInput,
  CharacterRecapInput,
  ChatMessage,
  CodexExtractInput,
  PlanInput,
  PreviouslyInput,
  RetrievalPlan,
  SessionSummaryInput,
} from '../engine.ts';
import type { CodexFinding } from '@chronicler/contracts';
import { enforceAiRateLimit, recordAiRequest } from '../usage.ts';
import { runOffline } from './pool.ts';
import type { OfflineTask } from './tasks.ts';

/** What an offline answer quotes: the best four passages, within this much text. */
export const OFFLINE_RETRIEVAL_PLAN: RetrievalPlan = { limit: 4, maxChars: 12_000 };

export class OfflineEngine implements AiEngine {
  readonly kind = 'offline' as const;
  readonly model = 'offline';

  constructor(
    private readonly config: AiConfig,
    private readonly deps: AiDeps,
  ) {}

  summarizeSession(ctx: AiRequestContext, input: SessionSummaryInput): Promise<string> {
    return this.run(ctx, input.transcript.length + input.name.length, { kind: 'session', input });
  }

  summarizeCampaign(ctx: AiRequestContext, input: CampaignSummaryInput): Promise<string> {
    const size = input.sessions.reduce((n, s) => n + s.name.length + s.summary.length, input.name.length);
    return this.run(ctx, size, { kind: 'campaign', input });
  }

  /** A few passages to quote: the best four, each a few lines. */
  retrievalPlan(): RetrievalPlan {
    return OFFLINE_RETRIEVAL_PLAN;
  }

  answer(ctx: AiRequestContext, input: AnswerInput): Promise<string> {
    const found = input.found.passages.reduce(
      (n, p) => n + p.lines.reduce((m, l) => m + l.text.length, 0),
      0,
    );
    const size = found + input.question.length + historySize(input.history);
    return this.run(ctx, size, { kind: 'answer', input });
  }

  plan(ctx: AiRequestContext, input: PlanInput): Promise<string> {
    const size =
      input.sessions.reduce((n, s) => n + s.name.length + s.summary.length, 0) +
      input.campaignSummary.length +
      input.message.length +
      historySize(input.history) +
      (input.editor?.content.length ?? 0);
    return this.run(ctx, size, { kind: 'plan', input });
  }

  async extractCodex(ctx: AiRequestContext, input: CodexExtractInput): Promise<CodexFinding[]> {
    const text = await this.run(ctx, input.transcript.length, { kind: 'codex', input });
    return JSON.parse(text) as CodexFinding[];
  }

  characterRecap(ctx: AiRequestContext, input: CharacterRecapInput): Promise<string> {
    const size = input.sessions.reduce((n, s) => n + s.transcript.length, 0);
    return this.run(ctx, size, { kind: 'character-recap', input });
  }

  previously(ctx: AiRequestContext, input: PreviouslyInput): Promise<string> {
    const size = input.sessions.reduce((n, s) => n + s.summary.length, input.lastTranscript.length);
    return this.run(ctx, size, { kind: 'previously', input });
  }

  /** Rate limit, work, usage record: the same for every kind of request. */
  private async run(ctx: AiRequestContext, inputChars: number, task: OfflineTask): Promise<string> {
    ctx.signal?.throwIfAborted();
    // The limit is there for paid models; work the system asks of the offline engine (a bulk
    // import's automatic summaries) costs nothing and must not use up the user's allowance.
    if (!ctx.automatic) await enforceAiRateLimit(this.deps.coord, this.config, ctx.userId);
    const started = Date.now();
    let output: string;
    try {
      // Off the main thread (AI_OFFLINE_THREADS): requests and live sockets go on meanwhile.
      output = await runOffline(this.config.AI_OFFLINE_THREADS, task, {
        nice: this.config.AI_OFFLINE_NICE,
        signal: ctx.signal,
        logger: this.deps.logger,
      });
    } catch (err) {
      await this.record(ctx, inputChars, 0, false, started);
      throw err;
    }
    await this.record(ctx, inputChars, output.length, true, started);
    return output;
  }

  private async record(
    ctx: AiRequestContext,
    inputChars: number,
    outputChars: number,
    success: boolean,
    started: number,
  ): Promise<void> {
    try {
      await recordAiRequest(this.deps.bus, {
        userId: ctx.userId,
        type: ctx.type,
        ...(ctx.transcriptId ? { transcriptId: ctx.transcriptId } : {}),
        model: this.model,
        inputTokens: estimateTokens(inputChars),
        outputTokens: estimateTokens(outputChars),
        costUsd: 0,
        success,
        ms: Date.now() - started,
      });
    } catch (err) {
      // The answer is already made; a lost usage record must not cost the user the answer.
      this.deps.logger.error({ err, userId: ctx.userId, type: ctx.type }, 'offline AI usage record failed');
    }
  }
}

function historySize(history: ChatMessage[]): number {
  return history.reduce((n, m) => n + m.content.length, 0);
}

/** About 4 characters per token: the usage ledger's count for text no tokenizer saw. */
const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

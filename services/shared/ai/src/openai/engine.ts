import type OpenAI from 'openai';
import type { AiConfig } from '../config.ts';
import type { AiDeps } from '../engine.ts';
import {
  AiUnavailableError,
  type AiEngine,
  type AiRequestContext,
  type AnswerInput,
  type CampaignSummaryInput,
  type CharacterRecapInput,
  type ChatMessage,
  type CodexExtractInput,
  type PreviouslyInput,
  type PlanInput,
  type RetrievalPlan,
  type SessionDigest,
  type SessionSummaryInput,
} from '../engine.ts';
import { aiRequestCostUsd, enforceAiRateLimit, recordAiRequest } from '../usage.ts';
import {
  completeChat,
  createOpenAiClient,
  estimateMessagesTokens,
  estimateTokens,
  streamChat,
  type ChatResult,
} from './client.ts';
import type { TSchema } from '@sinclair/typebox';
import type { StructuredShape } from '../recap/schema.ts';
import { discoverContext, type ModelContext } from './context.ts';
import { passagesBlock } from './passages-prompt.ts';
import { planningReply, recentTurns, refusedSchema } from './replies.ts';
import {
  ASK_INSTRUCTIONS,
  CHAT_INSTRUCTIONS,
  editorBlock,
  PLANNING_INSTRUCTIONS,
  PLANNING_JSON_INSTRUCTIONS,
  whoIsWhoBlock,
  sessionsBlock,
} from './prompts.ts';
import { extractCodexWithModel } from './codex.ts';
import { campaignRecap, sessionRecap } from './recap.ts';
import { characterStoryWithModel, previouslyWithModel } from './story.ts';
import { campaignDigest } from '../offline/campaign.ts';
import { sessionDigest } from '../offline/digest.ts';
import { AiSchemaError, withSchemaNotice } from './schema-fallback.ts';
import type { ModelPort } from './structured.ts';
import {
  countMessages,
  estimateCounter,
  openAiEncodingOf,
  tokenCounterFor,
  type TokenCounter,
} from './tokens.ts';

/**
 * Chat on a long transcript sends the passages relevant to the question, never the whole
 * text: at most this many characters of them, so that a 500,000-character transcript sends
 * less than a tenth of its tokens with the instructions and history (issue #5).
 */
const CHAT_PASSAGE_MAX_CHARS = 36_000;
/** The most recent chat turns sent with a question, newest kept first, within this size. */
const CHAT_HISTORY_MAX_CHARS = 6_000;
const DEFAULT_TEMPERATURE = 0.7;

type CallOptions = {
  /** Part of a request already counted against the user's limit (a recap's steps). */
  counted?: boolean;
  json?: boolean;
  temperature?: number;
  shape?: StructuredShape<TSchema>;
  maxTokens?: number;
};

export class OpenAiEngine implements AiEngine, ModelPort {
  readonly kind = 'openai' as const;
  readonly model: string;
  private readonly client: OpenAI;
  private context: ModelContext | null = null;
  private tokens: TokenCounter = estimateCounter;
  private starting: Promise<ModelContext> | null = null;
  /** False once the server refused a json_schema response_format: json_object from then on. */
  private schemaSupported = true;

  constructor(
    private readonly config: AiConfig,
    private readonly deps: AiDeps,
  ) {
    if (!config.OPENAI_MODEL) throw new Error('OPENAI_MODEL is required for the OpenAI engine');
    this.model = config.OPENAI_MODEL;
    this.client = createOpenAiClient(config);
  }

  /**
   * Learns the model's context (OPENAI_CONTEXT_TOKENS, else the server's own word) and loads its
   * tokenizer, once; every request waits for it. The services call it at start to log it.
   */
  ready(): Promise<ModelContext> {
    this.starting ??= (async () => {
      this.tokens = await tokenCounterFor(this.model);
      this.context = await discoverContext(this.client, this.model, this.config.OPENAI_CONTEXT_TOKENS);
      return this.context;
    })();
    return this.starting;
  }

  get counter(): TokenCounter {
    return this.tokens;
  }

  get contextTokens(): number {
    return this.context?.tokens ?? 0;
  }

  /** Tokens kept free for the model's answer (and sent as its output limit on structured requests). */
  get answerTokens(): number {
    return Math.min(4_096, Math.floor(this.contextTokens / 4));
  }

  /** Prompt tokens one request may use. */
  private get promptBudgetTokens(): number {
    return this.contextTokens - this.answerTokens - 32;
  }

  /** Whether a system + user prompt fits the context with room for the answer. */
  fitsContext(instructions: string, content: string): boolean {
    return countMessages(this.tokens, [system(instructions), user(content)]) <= this.promptBudgetTokens;
  }

  /**
   * A recap is one request against the user's AI limit however many calls its chunks take (a
   * 4-hour session on a small context makes dozens): counted once here, not per call. A model
   * answer that will not fit the recap's form even repaired and coerced becomes the offline
   * digest, with a notice that says why.
   */
  async summarizeSession(ctx: AiRequestContext, input: SessionSummaryInput): Promise<string> {
    await this.ready();
    await enforceAiRateLimit(this.deps.coord, this.config, ctx.userId);
    return this.orDigest(
      ctx,
      () => sessionRecap(this, ctx, input),
      () => sessionDigest(input),
    );
  }

  async summarizeCampaign(ctx: AiRequestContext, input: CampaignSummaryInput): Promise<string> {
    await this.ready();
    await enforceAiRateLimit(this.deps.coord, this.config, ctx.userId);
    return this.orDigest(
      ctx,
      () => campaignRecap(this, ctx, input),
      () => campaignDigest(input),
    );
  }

  // The codex and the stories (codex.ts, story.ts), once the context is known. Like a recap, each
  // is one request against the user's AI limit however many calls its chunks take (`complete`).
  async extractCodex(ctx: AiRequestContext, input: CodexExtractInput) {
    await this.ready();
    await enforceAiRateLimit(this.deps.coord, this.config, ctx.userId);
    return extractCodexWithModel(this, ctx, input);
  }
  async characterRecap(ctx: AiRequestContext, input: CharacterRecapInput) {
    await this.ready();
    await enforceAiRateLimit(this.deps.coord, this.config, ctx.userId);
    return characterStoryWithModel(this, ctx, input);
  }
  async previously(ctx: AiRequestContext, input: PreviouslyInput) {
    await this.ready();
    await enforceAiRateLimit(this.deps.coord, this.config, ctx.userId);
    return previouslyWithModel(this, ctx, input);
  }

  private async orDigest(
    ctx: AiRequestContext,
    recap: () => Promise<string>,
    digest: () => string,
  ): Promise<string> {
    try {
      return await recap();
    } catch (err) {
      if (!(err instanceof AiSchemaError)) throw err;
      this.deps.logger.warn(
        { model: this.model, userId: ctx.userId, type: ctx.type, shape: err.shape, reason: err.reason },
        `the AI model's ${err.shape} did not match its schema after a repair and coercion; the offline digest answers instead`,
      );
      return withSchemaNotice(digest(), this.model);
    }
  }

  warn(fields: Record<string, unknown>, message: string): void {
    this.deps.logger.warn({ model: this.model, ...fields }, message);
  }

  /** One request of a recap step (ModelPort): the recap it belongs to was counted already. */
  complete(
    ctx: AiRequestContext,
    messages: ChatMessage[],
    opts: { shape?: StructuredShape<TSchema>; maxTokens?: number },
  ): Promise<string> {
    return this.call(ctx, messages, { ...opts, temperature: 0.2, counted: true });
  }

  async answer(ctx: AiRequestContext, input: AnswerInput): Promise<string> {
    await this.ready();
    return this.call(ctx, this.answerMessages(input), {
      temperature: input.temperature ?? DEFAULT_TEMPERATURE,
    });
  }

  /**
   * The same request as `answer`, streamed: yields the text as it arrives and returns the
   * whole answer. Rate limited and recorded like every model call (also when the caller stops
   * reading early).
   */
  async *streamAnswer(ctx: AiRequestContext, input: AnswerInput): AsyncGenerator<string, string> {
    await this.ready();
    const messages = this.answerMessages(input);
    await enforceAiRateLimit(this.deps.coord, this.config, ctx.userId);
    const started = performance.now();
    let text = '';
    let result: ChatResult | undefined;
    const stream = streamChat(this.client, {
      model: this.model,
      messages,
      temperature: input.temperature ?? DEFAULT_TEMPERATURE,
      signal: ctx.signal,
    });
    try {
      for (;;) {
        const next = await stream.next();
        if (next.done) {
          result = next.value;
          break;
        }
        text += next.value;
        yield next.value;
      }
      return result.text;
    } finally {
      // A reader that stopped early closes the HTTP stream too.
      if (!result) await stream.return(undefined as never).catch(() => undefined);
      await this.record(
        ctx,
        started,
        result?.inputTokens ?? estimateMessagesTokens(messages),
        result?.outputTokens ?? estimateTokens(text),
        result !== undefined,
      );
    }
  }

  /**
   * As much as the context holds once the instructions, the recent turns and the question are
   * in: the transcript service is asked for passages within that many characters (a session
   * that fits is sent whole), at the characters per token this model's counter gives.
   */
  retrievalPlan(input: {
    question: string;
    history: ChatMessage[];
    scope: AnswerInput['scope'];
  }): RetrievalPlan {
    const instructions = input.scope === 'campaign' ? ASK_INSTRUCTIONS : CHAT_INSTRUCTIONS;
    const history = recentTurns(input.history, CHAT_HISTORY_MAX_CHARS);
    const fixedChars =
      instructions.length + input.question.length + history.reduce((n, m) => n + m.content.length, 0) + 512;
    const charsPerToken = CHAT_INSTRUCTIONS.length / Math.max(1, this.tokens.count(CHAT_INSTRUCTIONS));
    const room = Math.floor(this.promptBudgetTokens * charsPerToken * 0.85) - fixedChars;
    const maxChars = Math.max(1_000, Math.min(CHAT_PASSAGE_MAX_CHARS, room));
    return { limit: 200, maxChars, wholeWithin: input.scope === 'session' ? maxChars : undefined };
  }

  /**
   * The answer prompt: a system message that starts with the same instructions every time, then
   * the session's (or campaign's) name, then the whole session when it was small or else the
   * passages found for the question, in order, with their times (numbered by session in a
   * campaign); then the recent turns and the question.
   */
  answerMessages(input: Omit<AnswerInput, 'temperature'>): ChatMessage[] {
    const history = recentTurns(input.history, CHAT_HISTORY_MAX_CHARS);
    const campaign = input.scope === 'campaign';
    const head = `${campaign ? ASK_INSTRUCTIONS : CHAT_INSTRUCTIONS}\n\n${campaign ? 'Campaign' : 'Session'}: ${
      input.name
    }\n\n${whoIsWhoBlock(input.characters)}`;
    return [system(head + passagesBlock(input)), ...history, user(input.question)];
  }

  async plan(ctx: AiRequestContext, input: PlanInput): Promise<string> {
    await this.ready();
    const editorText = input.editor ? editorBlock(input.editor) : '';
    const contextOf = (sessions: SessionDigest[], campaignSummary: string) =>
      `Campaign: ${input.groupName}\n\n${whoIsWhoBlock(input.characters)}Campaign summary:\n${campaignSummary.trim() || 'None yet.'}\n\n` +
      `Sessions, oldest first${sessions.length < input.sessions.length ? ' (the most recent ones)' : ''}:\n` +
      sessionsBlock(sessions);
    // A long campaign keeps its newest sessions: the campaign summary already tells the older ones.
    let sessions = input.sessions;
    let context = contextOf(sessions, input.campaignSummary);
    const fits = () =>
      this.fitsContext(
        PLANNING_INSTRUCTIONS + PLANNING_JSON_INSTRUCTIONS,
        context + editorText + input.message,
      );
    while (!fits() && sessions.length > 0) {
      sessions = sessions.slice(1);
      context = contextOf(sessions, input.campaignSummary);
    }
    if (!fits())
      context = contextOf([], input.campaignSummary.slice(0, Math.floor(this.promptBudgetTokens * 2)));
    const instructions = input.editor
      ? `${PLANNING_INSTRUCTIONS}\n\n${PLANNING_JSON_INSTRUCTIONS}`
      : PLANNING_INSTRUCTIONS;
    const systemText = `${instructions}\n\n${context}${editorText ? `\n\n${editorText}` : ''}`;
    const messages = [
      system(systemText),
      ...recentTurns(input.history, CHAT_HISTORY_MAX_CHARS),
      user(input.message),
    ];
    const text = await this.call(ctx, messages, {
      json: input.editor !== null,
      temperature: DEFAULT_TEMPERATURE,
    });
    return input.editor ? planningReply(text) : text;
  }

  /** One model call: the user's rate limit first, then one usage record whatever happens. */
  private async call(
    ctx: AiRequestContext,
    messages: ChatMessage[],
    opts: CallOptions = {},
  ): Promise<string> {
    if (!opts.counted) await enforceAiRateLimit(this.deps.coord, this.config, ctx.userId);
    const started = performance.now();
    let result: ChatResult;
    try {
      result = await this.completeOnce(messages, opts, ctx.signal);
    } catch (err) {
      await this.record(ctx, started, estimateMessagesTokens(messages), 0, false);
      throw err;
    }
    const ok = result.text.trim().length > 0;
    await this.record(ctx, started, result.inputTokens, result.outputTokens, ok);
    if (!ok) throw new AiUnavailableError(`The AI model ${this.model} returned an empty answer.`);
    return result.text;
  }

  /**
   * The request as the server takes it: a json_schema response_format while the server accepts
   * it, else json_object (the schema is in the instructions too); the output limit under the
   * name OpenAI's own models want.
   */
  private async completeOnce(
    messages: ChatMessage[],
    opts: CallOptions,
    signal?: AbortSignal,
  ): Promise<ChatResult> {
    const outputLimit =
      opts.maxTokens === undefined
        ? {}
        : openAiEncodingOf(this.model)
          ? { max_completion_tokens: opts.maxTokens }
          : { max_tokens: opts.maxTokens };
    const request = { model: this.model, messages, temperature: opts.temperature, signal, outputLimit };
    if (opts.shape && this.schemaSupported) {
      try {
        return await completeChat(this.client, { ...request, schema: opts.shape });
      } catch (err) {
        if (!refusedSchema(err)) throw err;
        this.schemaSupported = false;
        this.deps.logger.warn(
          { model: this.model },
          'the AI server refused json_schema output; using json_object',
        );
      }
    }
    return completeChat(this.client, { ...request, json: opts.json || opts.shape !== undefined });
  }

  private async record(
    ctx: AiRequestContext,
    started: number,
    inputTokens: number,
    outputTokens: number,
    success: boolean,
  ): Promise<void> {
    try {
      await recordAiRequest(this.deps.bus, {
        userId: ctx.userId,
        type: ctx.type,
        ...(ctx.transcriptId ? { transcriptId: ctx.transcriptId } : {}),
        model: this.model,
        inputTokens,
        outputTokens,
        costUsd: aiRequestCostUsd(this.config, inputTokens, outputTokens),
        success,
        ms: Math.round(performance.now() - started),
      });
    } catch (err) {
      // The answer is not lost over the ledger: the bus being down is reported by its own health.
      this.deps.logger.error({ err, userId: ctx.userId, type: ctx.type }, 'could not record an AI request');
    }
  }
}

const system = (content: string): ChatMessage => ({ role: 'system', content });
const user = (content: string): ChatMessage => ({ role: 'user', content });

import type OpenAI from 'openai';
import type { AiConfig } from '../config.ts';
import type { AiDeps } from '../create.ts';
import {
  AiUnavailableError,
  type AiEngine,
  type AiRequestContext,
  type AnswerInput,
  type CampaignSummaryInput,
  type ChatMessage,
  type PlanInput,
  type SessionDigest,
  type SessionSummaryInput,
} from '../engine.ts';
import { selectPassages } from '../retrieval.ts';
import { aiRequestCostUsd, enforceAiRateLimit, recordAiRequest } from '../usage.ts';
import {
  completeChat,
  createOpenAiClient,
  estimateMessagesTokens,
  estimateTokens,
  streamChat,
  type ChatResult,
} from './client.ts';
import {
  CAMPAIGN_SUMMARY_INSTRUCTIONS,
  CHAT_INSTRUCTIONS,
  editorBlock,
  MERGE_SUMMARY_INSTRUCTIONS,
  PART_SUMMARY_INSTRUCTIONS,
  PLANNING_INSTRUCTIONS,
  PLANNING_JSON_INSTRUCTIONS,
  SESSION_SUMMARY_INSTRUCTIONS,
  whoIsWhoBlock,
  sessionsBlock,
} from './prompts.ts';

/**
 * Chat on a long transcript sends the passages relevant to the question, never the whole
 * text: at most this many characters of them, so that a 500,000-character transcript sends
 * less than a tenth of its tokens with the instructions and history (issue #5).
 */
export const CHAT_PASSAGE_MAX_CHARS = 36_000;
/** The most recent chat turns sent with a question, newest kept first, within this size. */
export const CHAT_HISTORY_MAX_CHARS = 6_000;
/** Turns of earlier user questions added to the passage query (follow-ups name no topic). */
const QUERY_USER_TURNS = 2;
/** Parallel model calls of one map-reduce summary (each is rate limited and recorded). */
const MAP_CONCURRENCY = 4;
/** Merge rounds before a summary that will not shrink to the context is given up. */
const MAX_MERGE_ROUNDS = 6;
const DEFAULT_TEMPERATURE = 0.7;
const ACTION_HINTS = new Set(['replaceSelection', 'insertAtCursor', 'append']);

type CallOptions = { json?: boolean; temperature?: number };

export class OpenAiEngine implements AiEngine {
  readonly kind = 'openai' as const;
  readonly model: string;
  private readonly client: OpenAI;

  constructor(
    private readonly config: AiConfig,
    private readonly deps: AiDeps,
  ) {
    if (!config.OPENAI_MODEL) throw new Error('OPENAI_MODEL is required for the OpenAI engine');
    this.model = config.OPENAI_MODEL;
    this.client = createOpenAiClient(config);
  }

  /** Tokens kept free for the model's answer within OPENAI_CONTEXT_TOKENS. */
  private get answerReserveTokens(): number {
    return Math.min(4_096, Math.floor(this.config.OPENAI_CONTEXT_TOKENS / 4));
  }

  /** Prompt tokens one request may use. */
  private get promptBudgetTokens(): number {
    return this.config.OPENAI_CONTEXT_TOKENS - this.answerReserveTokens;
  }

  /** Whether a system + user prompt fits the context with room for the answer. */
  fitsContext(instructions: string, content: string): boolean {
    return estimateMessagesTokens([system(instructions), user(content)]) <= this.promptBudgetTokens;
  }

  /** Characters of text per map-reduce chunk, with a margin for the 4-chars-per-token guess. */
  private chunkChars(instructions: string, header: string): number {
    const free = this.promptBudgetTokens - estimateTokens(instructions) - estimateTokens(header) - 64;
    return Math.max(1_000, Math.floor(free * 4 * 0.85));
  }

  async summarizeSession(ctx: AiRequestContext, input: SessionSummaryInput): Promise<string> {
    return this.summarize(ctx, {
      instructions: SESSION_SUMMARY_INSTRUCTIONS,
      header: `Session: ${input.name}\n\n${whoIsWhoBlock(input.characters)}Transcript:\n`,
      text: input.transcript,
      partInstructions: PART_SUMMARY_INSTRUCTIONS,
      mergeInstructions: MERGE_SUMMARY_INSTRUCTIONS,
    });
  }

  async summarizeCampaign(ctx: AiRequestContext, input: CampaignSummaryInput): Promise<string> {
    return this.summarize(ctx, {
      instructions: CAMPAIGN_SUMMARY_INSTRUCTIONS,
      header: `Campaign: ${input.name}\n\n${whoIsWhoBlock(input.characters)}Session summaries, oldest first:\n`,
      text: sessionsBlock(input.sessions),
      partInstructions: CAMPAIGN_SUMMARY_INSTRUCTIONS,
      mergeInstructions: CAMPAIGN_SUMMARY_INSTRUCTIONS,
    });
  }

  async answer(ctx: AiRequestContext, input: AnswerInput): Promise<string> {
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
   * The chat prompt: a system message that starts with the same instructions every time, then
   * the transcript's name, then the whole transcript when it is small or else the passages
   * relevant to the question (and the last user turns, for follow-ups); then the recent turns.
   */
  answerMessages(input: Omit<AnswerInput, 'temperature'>): ChatMessage[] {
    const history = recentTurns(input.history, CHAT_HISTORY_MAX_CHARS);
    const head = `${CHAT_INSTRUCTIONS}\n\nSession: ${input.transcriptName}\n\n${whoIsWhoBlock(input.characters)}`;
    const fixedChars =
      head.length + input.question.length + history.reduce((n, m) => n + m.content.length, 0) + 64;
    const room = Math.floor(this.promptBudgetTokens * 4 * 0.9) - fixedChars;
    const maxChars = Math.max(1_000, Math.min(CHAT_PASSAGE_MAX_CHARS, room));
    let body: string;
    if (input.transcript.length <= maxChars) {
      body = `Transcript:\n${input.transcript}`;
    } else {
      const earlier = input.history
        .filter((m) => m.role === 'user')
        .slice(-QUERY_USER_TURNS)
        .map((m) => m.content);
      const query = [input.question, ...earlier].join('\n');
      const { text } = selectPassages(input.transcript, query, { maxChars });
      body = `Transcript passages relevant to the question (the transcript is longer):\n${
        text.trim() || '(No passage of the transcript matches the question.)'
      }`;
    }
    return [system(head + body), ...history, user(input.question)];
  }

  async plan(ctx: AiRequestContext, input: PlanInput): Promise<string> {
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

  private async summarize(
    ctx: AiRequestContext,
    p: {
      instructions: string;
      header: string;
      text: string;
      partInstructions: string;
      mergeInstructions: string;
    },
  ): Promise<string> {
    if (this.fitsContext(p.instructions, p.header + p.text)) {
      return this.call(ctx, [system(p.instructions), user(p.header + p.text)]);
    }
    const chunks = chunkAtLines(p.text, this.chunkChars(p.partInstructions, p.header));
    let parts = await mapLimit(chunks, MAP_CONCURRENCY, (chunk, i) =>
      this.call(ctx, [
        system(p.partInstructions),
        user(`${p.header.replace(/\n+$/, '')} (part ${i + 1} of ${chunks.length})\n${chunk}`),
      ]),
    );
    for (let round = 0; round < MAX_MERGE_ROUNDS; round++) {
      const joined = parts.map((s, i) => `Part ${i + 1}:\n${s.trim()}`).join('\n\n');
      const mergeHeader = `${p.header.split('\n')[0]}\n\nSummaries of its parts, in order:\n`;
      if (this.fitsContext(p.mergeInstructions, mergeHeader + joined) || parts.length === 1) {
        return this.call(ctx, [
          system(p.mergeInstructions),
          user(mergeHeader + clip(joined, this.chunkChars(p.mergeInstructions, mergeHeader))),
        ]);
      }
      // Too many part summaries for one merge: merge them in groups, then merge the groups.
      const groups = chunkAtLines(joined, this.chunkChars(p.mergeInstructions, mergeHeader));
      const merged = await mapLimit(groups, MAP_CONCURRENCY, (group) =>
        this.call(ctx, [system(p.mergeInstructions), user(mergeHeader + group)]),
      );
      parts = merged;
    }
    throw new AiUnavailableError('The summary could not be condensed to fit the model context.');
  }

  /** One model call: the user's rate limit first, then one usage record whatever happens. */
  private async call(
    ctx: AiRequestContext,
    messages: ChatMessage[],
    opts: CallOptions = {},
  ): Promise<string> {
    await enforceAiRateLimit(this.deps.coord, this.config, ctx.userId);
    const started = performance.now();
    let result: ChatResult;
    try {
      result = await completeChat(this.client, {
        model: this.model,
        messages,
        json: opts.json,
        temperature: opts.temperature,
        signal: ctx.signal,
      });
    } catch (err) {
      await this.record(ctx, started, estimateMessagesTokens(messages), 0, false);
      throw err;
    }
    const ok = result.text.trim().length > 0;
    await this.record(ctx, started, result.inputTokens, result.outputTokens, ok);
    if (!ok) throw new AiUnavailableError(`The AI model ${this.model} returned an empty answer.`);
    return result.text;
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

/** The latest user and assistant turns whose text fits `maxChars`, in order. */
function recentTurns(history: ChatMessage[], maxChars: number): ChatMessage[] {
  const kept: ChatMessage[] = [];
  let size = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === 'system') continue;
    if (size + m.content.length > maxChars) break;
    size += m.content.length;
    kept.unshift({ role: m.role, content: m.content });
  }
  return kept;
}

/** Splits text into pieces of at most maxChars, cutting between lines (a longer line is cut). */
export function chunkAtLines(text: string, maxChars: number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const line of text.split('\n')) {
    const pieces: string[] = [];
    for (let at = 0; at === 0 || at < line.length; at += maxChars) pieces.push(line.slice(at, at + maxChars));
    for (const piece of pieces) {
      if (current.length > 0 && size + 1 + piece.length > maxChars) {
        chunks.push(current.join('\n'));
        current = [];
        size = 0;
      }
      size += (current.length > 0 ? 1 : 0) + piece.length;
      current.push(piece);
    }
  }
  const last = current.join('\n');
  if (last.trim()) chunks.push(last);
  return chunks.filter((c) => c.trim().length > 0);
}

function clip(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : text.slice(0, maxChars);
}

async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * The planning reply as the web app applies it: `{"actionHint", "aiContent"}` when the model
 * asked to change the document, else its plain-text reply. A model that ignored JSON mode is
 * passed through as text.
 */
export function planningReply(raw: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(raw);
  const candidate = (fenced ? fenced[1]! : raw).trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(candidate);
  } catch {
    return raw.trim();
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return raw.trim();
  const o = parsed as Record<string, unknown>;
  if (typeof o.aiContent === 'string' && o.aiContent.trim()) {
    const actionHint =
      typeof o.actionHint === 'string' && ACTION_HINTS.has(o.actionHint) ? o.actionHint : 'append';
    return JSON.stringify({ actionHint, aiContent: o.aiContent });
  }
  if (typeof o.reply === 'string' && o.reply.trim()) return o.reply.trim();
  return raw.trim();
}

import { aiRequestRecordedEvent, usageEventsStream, type AiRequestRecorded } from '@chronicler/contracts';
import { aiCostUsd, aiRequests, aiTokens, type Bus, type Coordination } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import type { AiConfig } from './config.ts';
import { estimateCostUsd } from './cost.ts';
import { AiRateLimitedError, type AiRequestType } from './engine.ts';

/** One AI request as an engine reports it; `recordAiRequest` turns it into a ledger record. */
export interface AiRequestUsage {
  userId: string;
  type: AiRequestType;
  /** The session the request is about, when it is about one. */
  transcriptId?: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  success: boolean;
  ms: number;
}

const AI_REQUEST_TYPES = [
  'session_summary',
  'campaign_summary',
  'chat',
  'planning',
  'codex',
  'character_recap',
  'previously',
] as const satisfies readonly AiRequestType[];

/**
 * Starts the AI metrics of a process at zero for its model, so that the first request shows as
 * an increase (Prometheus takes a series' first sample as its baseline) and a service that made
 * no request reads 0 rather than no data.
 */
export function zeroAiMetrics(model: string): void {
  for (const type of AI_REQUEST_TYPES) {
    for (const outcome of ['success', 'failure']) aiRequests.inc({ type, model, outcome }, 0);
    for (const kind of ['prompt', 'completion']) aiTokens.inc({ type, model, kind }, 0);
    aiCostUsd.inc({ type, model }, 0);
  }
}

// The stream is ensured once per bus (and again after a failure), not on every request.
const streamReady = new WeakMap<Bus, Promise<void>>();

function ensureUsageStream(bus: Bus): Promise<void> {
  let ready = streamReady.get(bus);
  if (!ready) {
    ready = bus.ensureStream(usageEventsStream).catch((err: unknown) => {
      streamReady.delete(bus);
      throw err;
    });
    streamReady.set(bus, ready);
  }
  return ready;
}

/** The cost of a request with the prices configured now (kept with the record as it was then). */
export function aiRequestCostUsd(
  config: Pick<AiConfig, 'AI_PRICE_INPUT_PER_MILLION_USD' | 'AI_PRICE_OUTPUT_PER_MILLION_USD'>,
  inputTokens: number,
  outputTokens: number,
): number {
  return estimateCostUsd(inputTokens, outputTokens, {
    inputPerMillionUsd: config.AI_PRICE_INPUT_PER_MILLION_USD,
    outputPerMillionUsd: config.AI_PRICE_OUTPUT_PER_MILLION_USD,
  });
}

/**
 * Publishes one durable usage record for an AI request (success or failure). The record id is
 * also the message id, so a publish retried by the bus is counted once by the ledger.
 */
export async function recordAiRequest(bus: Bus, r: AiRequestUsage): Promise<void> {
  await ensureUsageStream(bus);
  const nonNegativeInt = (n: number) => (Number.isFinite(n) && n > 0 ? Math.round(n) : 0);
  const record: AiRequestRecorded = {
    record_id: randomUUID(),
    user_id: r.userId,
    request_type: r.type,
    transcript_id: r.transcriptId ?? '',
    model: r.model,
    input_tokens: nonNegativeInt(r.inputTokens),
    output_tokens: nonNegativeInt(r.outputTokens),
    estimated_cost_usd: Number.isFinite(r.costUsd) && r.costUsd > 0 ? r.costUsd : 0,
    success: r.success,
    processing_time_ms: nonNegativeInt(r.ms),
    created_at: new Date().toISOString(),
  };
  // Counted by the process that made the request, before the ledger has it: the metrics must
  // not wait on the bus, and the type and model are configuration, so the labels stay few.
  const type = record.request_type;
  const model = record.model;
  aiRequests.inc({ type, model, outcome: record.success ? 'success' : 'failure' });
  aiTokens.inc({ type, model, kind: 'prompt' }, record.input_tokens);
  aiTokens.inc({ type, model, kind: 'completion' }, record.output_tokens);
  aiCostUsd.inc({ type, model }, record.estimated_cost_usd);
  await bus.publishDurable(aiRequestRecordedEvent.subject, record, { msgId: record.record_id });
}

const RATE_WINDOW_MS = 60_000;

/**
 * Counts one AI request for the user against AI_RATE_LIMIT_PER_MINUTE (a sliding minute,
 * shared by every replica through coord) and throws AiRateLimitedError when it is over.
 */
export async function enforceAiRateLimit(
  coord: Coordination,
  config: Pick<AiConfig, 'AI_RATE_LIMIT_PER_MINUTE'>,
  userId: string,
): Promise<void> {
  const result = await coord.rateLimiter.hit(
    `ai-requests:${userId}`,
    config.AI_RATE_LIMIT_PER_MINUTE,
    RATE_WINDOW_MS,
  );
  if (!result.allowed) throw new AiRateLimitedError(result.retryAfterMs);
}

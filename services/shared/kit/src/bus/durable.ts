import { RetryLater, ServiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { busRedeliveries } from '../ops/metrics.ts';
import { decodePayload } from './codec.ts';
import type { BusInstruments } from './instruments.ts';
import { sanitizeName } from './subject.ts';
import { markSpanFailed } from './trace.ts';
import type { ConsumerDefinition, DeadLetter, DurableContext, DurableHandler, Headers } from './types.ts';
import { errorMessage } from './util.ts';

export const DEFAULT_DUPLICATE_WINDOW_MS = 2 * 60 * 1000;
const MAX_BACKOFF_MS = 30_000;

export interface ResolvedConsumer {
  stream: string;
  durable: string;
  filterSubject?: string;
  ackWaitMs: number;
  maxDeliver: number;
  concurrency: number;
  confirmAck: boolean;
  deadLetterSubject: string;
  backoffMs: number;
  maxBackoffMs: number;
}

/** Applies the documented defaults and rejects values that would make a consumer misbehave. */
export function resolveConsumer(def: ConsumerDefinition): ResolvedConsumer {
  const r: ResolvedConsumer = {
    stream: def.stream,
    durable: def.durable,
    filterSubject: def.filterSubject,
    ackWaitMs: def.ackWaitMs ?? 30_000,
    maxDeliver: def.maxDeliver ?? 5,
    concurrency: def.concurrency ?? 1,
    confirmAck: def.confirmAck ?? true,
    deadLetterSubject:
      def.deadLetterSubject ?? `dlq.${sanitizeName(def.stream)}.${sanitizeName(def.durable)}`,
    backoffMs: def.backoffMs ?? 1000,
    maxBackoffMs: def.maxBackoffMs ?? MAX_BACKOFF_MS,
  };
  const positiveInt = (v: number) => Number.isInteger(v) && v > 0;
  if (!positiveInt(r.ackWaitMs))
    throw new ServiceError('internal', `ackWaitMs must be a positive integer (${def.durable})`);
  if (!positiveInt(r.maxDeliver))
    throw new ServiceError('internal', `maxDeliver must be a positive integer (${def.durable})`);
  if (!positiveInt(r.concurrency))
    throw new ServiceError('internal', `concurrency must be a positive integer (${def.durable})`);
  if (!(Number.isInteger(r.backoffMs) && r.backoffMs >= 0)) {
    throw new ServiceError('internal', `backoffMs must be a non-negative integer (${def.durable})`);
  }
  if (!positiveInt(r.maxBackoffMs))
    throw new ServiceError('internal', `maxBackoffMs must be a positive integer (${def.durable})`);
  return r;
}

/** Delay before redelivering after the `deliveryCount`-th delivery failed: doubling, capped (30 s by default). */
export function backoffDelay(backoffMs: number, deliveryCount: number, maxMs = MAX_BACKOFF_MS): number {
  return Math.min(backoffMs * 2 ** Math.max(0, deliveryCount - 1), maxMs);
}

/** The error recorded when the last allowed delivery ended without an outcome. */
const noOutcomeError = (ackWaitMs: number): string =>
  `not acknowledged within ${ackWaitMs} ms on the last allowed delivery (handler too slow, or its process stopped)`;

/** Msg id of a dead letter, so a retried dead-lettering is de-duplicated by the DLQ stream. */
export const deadLetterMsgId = (stream: string, durable: string, seq: number): string =>
  `dlq:${stream}:${durable}:${seq}`;

/**
 * Logs a durable handler's failure: at warn, but a RetryLater ("not yet") before the last
 * delivery at debug (a backlog of waiting messages would fill the log with expected noise).
 */
function logHandlerFailure(
  log: Logger,
  err: unknown,
  fields: Record<string, unknown> & { deliveryCount: number },
  maxDeliver: number,
): void {
  if (err instanceof RetryLater && fields.deliveryCount < maxDeliver) {
    log.debug({ ...fields, reason: err.message }, 'durable message not ready yet; redelivered later');
  } else {
    log.warn({ err, ...fields }, 'durable handler failed');
  }
}

/** A stored message handed to a consumer, as both buses describe it. */
export interface Delivery {
  /** Without the prefix. */
  subject: string;
  headers: Headers;
  seq: number;
  /** 1 on the first delivery. */
  deliveryCount: number;
  msgId?: string;
  text: string | undefined;
  working(): void;
}

/** What becomes of a delivery: acked, handed back for another delivery after `delayMs`, or dead-lettered. */
export type Outcome =
  { kind: 'ack' } | { kind: 'retry'; delayMs: number } | { kind: 'dead'; letter: DeadLetter };

/** The dead letter of a delivery; its payload as JSON when it parses, else as text. */
function deadLetterOf(cfg: ResolvedConsumer, d: Delivery, deliveries: number, error: string): DeadLetter {
  let payload: unknown = d.text;
  try {
    payload = decodePayload(d.text);
  } catch {
    // kept as text
  }
  const { stream, durable } = cfg;
  const msgId = d.msgId !== undefined ? { msgId: d.msgId } : {};
  return { stream, durable, subject: d.subject, seq: d.seq, ...msgId, deliveries, error, payload };
}

/**
 * One delivery, the same in both buses: the handler runs (in a consumer span) and `settle`
 * carries out the outcome its promise decided. A delivery past maxDeliver (the last allowed
 * one ended without an outcome: its ack wait ran out, or its process died) and a payload that
 * no delivery will ever parse go to the dead letters without running the handler.
 */
export function runDelivery(
  cfg: ResolvedConsumer,
  log: Logger,
  instruments: BusInstruments,
  handler: DurableHandler,
  d: Delivery,
  settle: (outcome: Outcome) => Promise<void>,
): Promise<void> {
  const dead = (deliveries: number, error: string) =>
    settle({ kind: 'dead', letter: deadLetterOf(cfg, d, deliveries, error) });
  if (d.deliveryCount > 1) busRedeliveries.inc({ stream: cfg.stream, durable: cfg.durable });
  return instruments.durable(cfg.stream, cfg.durable, d.subject, d.headers, async (span) => {
    if (d.deliveryCount > cfg.maxDeliver) return dead(d.deliveryCount - 1, noOutcomeError(cfg.ackWaitMs));
    let payload: unknown;
    try {
      payload = decodePayload(d.text);
    } catch (err) {
      return dead(d.deliveryCount, `payload is not JSON: ${errorMessage(err)}`);
    }
    const { subject, headers, seq, deliveryCount, working } = d;
    const ctx: DurableContext = { subject, headers, stream: cfg.stream, seq, deliveryCount, working };
    if (d.msgId !== undefined) ctx.msgId = d.msgId;
    try {
      await handler(payload, ctx);
    } catch (err) {
      markSpanFailed(span, err);
      logHandlerFailure(log, err, { seq, deliveryCount }, cfg.maxDeliver);
      if (deliveryCount >= cfg.maxDeliver) return dead(deliveryCount, errorMessage(err));
      return settle({ kind: 'retry', delayMs: backoffDelay(cfg.backoffMs, deliveryCount, cfg.maxBackoffMs) });
    }
    return settle({ kind: 'ack' });
  });
}

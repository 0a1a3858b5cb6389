import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
  type Attributes,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import pino from 'pino';
import { ServiceError, httpStatusFor, type ServiceErrorCode } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { busMessagesPublished, busRequestSeconds, busRequests } from '../ops/metrics.ts';
import { sanitizeName } from './subject.ts';
import type { ConsumerDefinition, EventHandler, Headers, MessageMeta, RequestHandler } from './types.ts';

// Code shared by the NATS and the in-process bus. Whatever decides observable behaviour
// (payload encoding, the reply envelope, error mapping, defaults, trace propagation) lives
// here once, so the two implementations cannot drift apart.

export const DEFAULT_REQUEST_TIMEOUT_MS = 5000;
export const DEFAULT_DUPLICATE_WINDOW_MS = 2 * 60 * 1000;
export const MAX_BACKOFF_MS = 30_000;

/** A logger that drops everything, for buses created without one. */
export const silentLogger: Logger = pino({ enabled: false });

// ---- payloads ----------------------------------------------------------------------

/**
 * A reply that is already JSON text. The kit's `serve` serialises a result once to measure it
 * (and moves a large one to the blob store); this carries that text into the reply envelope
 * instead of serialising the same value a second time.
 */
export class EncodedJson {
  constructor(readonly text: string) {}
}

/**
 * JSON text of a payload, or undefined for `undefined` (an empty message). Serialising on
 * send is what guarantees that a handler never shares an object with its caller.
 */
export function encodePayload(payload: unknown, subject: string): string | undefined {
  try {
    return JSON.stringify(payload);
  } catch (err) {
    throw new ServiceError(
      'internal',
      `Payload for ${subject} is not JSON-serialisable: ${(err as Error).message}`,
    );
  }
}

export function decodePayload(text: string | undefined): unknown {
  return text === undefined || text.length === 0 ? undefined : JSON.parse(text);
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

export function toBytes(text: string | undefined): Uint8Array {
  return text === undefined ? new Uint8Array(0) : utf8Encoder.encode(text);
}

export function fromBytes(data: Uint8Array): string | undefined {
  return data.length === 0 ? undefined : utf8Decoder.decode(data);
}

// ---- request/reply -----------------------------------------------------------------

/**
 * What a responder sends back. Errors travel inside the reply rather than as a transport
 * failure so the caller can tell "the service said no" (a ServiceError with its code) from
 * "nobody answered" (unavailable / timeout).
 */
export type ReplyEnvelope =
  | { ok: true; data?: unknown }
  | { ok: false; error: { code: ServiceErrorCode; message: string; details?: Record<string, unknown> } };

const KNOWN_CODES = new Set(Object.keys(httpStatusFor));

/** The reply text for a handler's result; a result that cannot be serialised becomes `internal`. */
export function okReply(result: unknown, subject: string, log: Logger): string {
  if (result instanceof EncodedJson) return `{"ok":true,"data":${result.text}}`;
  try {
    return JSON.stringify({ ok: true, data: result });
  } catch (err) {
    log.error({ err, subject }, 'bus handler returned a value that is not JSON-serialisable');
    return errorReplyFor(new ServiceError('internal', `Internal error in ${subject}`), subject, log);
  }
}

/**
 * The reply text for a thrown error. A ServiceError keeps its code, message and details;
 * anything else is logged here with its stack and reaches the caller only as `internal`,
 * because messages of unexpected errors (SQL, file paths) are not for other services' users.
 */
export function errorReplyFor(err: unknown, subject: string, log: Logger): string {
  const se = ServiceError.is(err) ? err : internalErrorFor(err, subject, log);
  try {
    return JSON.stringify({ ok: false, error: se.toJSON() });
  } catch {
    // details that cannot be serialised (a cycle, a BigInt) are dropped, code and message kept
    return JSON.stringify({ ok: false, error: { code: se.code, message: se.message } });
  }
}

function internalErrorFor(err: unknown, subject: string, log: Logger): ServiceError {
  log.error({ err, subject }, 'bus handler failed');
  return new ServiceError('internal', `Internal error in ${subject}`);
}

/** Turns a reply text into the handler's result, or throws the ServiceError it carries. */
export function unwrapReply<Res>(text: string | undefined, subject: string): Res {
  let envelope: unknown;
  try {
    envelope = decodePayload(text);
  } catch {
    throw new ServiceError('internal', `Malformed reply from ${subject}`);
  }
  if (
    typeof envelope !== 'object' ||
    envelope === null ||
    typeof (envelope as { ok?: unknown }).ok !== 'boolean'
  ) {
    throw new ServiceError('internal', `Malformed reply from ${subject}`);
  }
  const e = envelope as ReplyEnvelope;
  if (e.ok) return e.data as Res;
  const code = KNOWN_CODES.has(e.error?.code) ? e.error.code : 'internal';
  const message = typeof e.error?.message === 'string' ? e.error.message : `Error from ${subject}`;
  const details = e.error?.details && typeof e.error.details === 'object' ? e.error.details : undefined;
  throw new ServiceError(code, message, details);
}

export const noResponders = (subject: string): ServiceError =>
  new ServiceError('unavailable', `No service answers ${subject}`);

export const requestTimedOut = (subject: string, timeoutMs: number): ServiceError =>
  new ServiceError('timeout', `No reply from ${subject} within ${timeoutMs} ms`);

export const busClosed = (): ServiceError => new ServiceError('unavailable', 'The bus is closed');

/** Records the request metrics; `outcome` is `ok` or the error code. */
export function recordRequest(subject: string, startedAt: number, err?: unknown): void {
  const outcome = err === undefined ? 'ok' : ServiceError.is(err) ? err.code : 'internal';
  busRequests.inc({ subject, outcome });
  busRequestSeconds.observe({ subject }, (performance.now() - startedAt) / 1000);
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : (JSON.stringify(err) ?? String(err));
}

// ---- headers -----------------------------------------------------------------------

// NATS header names are HTTP-like tokens; values may not break the header block. Checked in
// both buses so a header that NATS would refuse is refused in embedded mode too.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function copyHeaders(headers: Headers | undefined): Headers {
  const out: Headers = {};
  if (!headers) return out;
  for (const [k, v] of Object.entries(headers)) {
    if (!HEADER_NAME.test(k)) throw new ServiceError('internal', `Invalid header name ${JSON.stringify(k)}`);
    if (typeof v !== 'string' || /[\r\n]/.test(v)) {
      throw new ServiceError('internal', `Invalid value for header ${k}`);
    }
    out[k] = v;
  }
  return out;
}

/** Header names are case-insensitive on the wire; propagators ask for lower case. */
const headerGetter: TextMapGetter<Headers> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    if (key in carrier) return carrier[key];
    const lower = key.toLowerCase();
    for (const k of Object.keys(carrier)) if (k.toLowerCase() === lower) return carrier[k];
    return undefined;
  },
};

// ---- tracing -----------------------------------------------------------------------

const tracer = trace.getTracer('@chronicler/kit/bus');

function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : new Error(errorMessage(err)));
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
}

/**
 * Runs a send (request, publish) in a span and gives `fn` the headers to send: the caller's
 * own plus the trace context. The active span wins over a `traceparent` passed explicitly
 * (e.g. forwarded from an incoming message), because the active span is the real parent.
 */
export function traceOutgoing<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  explicit: Headers | undefined,
  fn: (headers: Headers) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      const headers = copyHeaders(explicit);
      propagation.inject(context.active(), headers);
      return await fn(headers);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Runs a handler inside the trace context carried by the message's headers. */
export function traceIncoming<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  headers: Headers,
  fn: (span: Span) => Promise<T> | T,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  return tracer.startActiveSpan(name, { kind, attributes }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failSpan(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Marks the active span failed without throwing (a durable handler's error is handled, not rethrown). */
export function markSpanFailed(span: Span, err: unknown): void {
  failSpan(span, err);
}

/** Trace headers of the active context alone (for messages the bus itself sends, e.g. dead letters). */
export function activeTraceHeaders(): Headers {
  const headers: Headers = {};
  propagation.inject(context.active(), headers);
  return headers;
}

export { SpanKind };

/**
 * The tracing and metrics around every send and receive, shared by both buses so that a span
 * or a counter cannot differ between the embedded mode and the cluster. Each bus supplies
 * only its transport: how a message goes out, how a reply comes back.
 */
export class BusInstruments {
  constructor(
    private readonly system: string,
    private readonly log: Logger,
  ) {}

  private attributes(subject: string, durable?: string): Attributes {
    return {
      'messaging.system': this.system,
      'messaging.destination.name': subject,
      ...(durable !== undefined ? { 'messaging.consumer.group.name': durable } : {}),
    };
  }

  /** A request: a client span around `send`, then the request metrics with its outcome. */
  async request<Res>(
    subject: string,
    headers: Headers | undefined,
    send: (headers: Headers) => Promise<Res>,
  ): Promise<Res> {
    const started = performance.now();
    try {
      const res = await traceOutgoing(
        `send ${subject}`,
        SpanKind.CLIENT,
        this.attributes(subject),
        headers,
        send,
      );
      recordRequest(subject, started);
      return res;
    } catch (err) {
      recordRequest(subject, started, err);
      throw err;
    }
  }

  /** A publish, core or durable: a producer span around `send`, counted once it went out. */
  async publish<T>(
    subject: string,
    kind: 'core' | 'durable',
    headers: Headers | undefined,
    send: (headers: Headers) => Promise<T>,
  ): Promise<T> {
    const out = await traceOutgoing('publish', SpanKind.PRODUCER, this.attributes(subject), headers, send);
    busMessagesPublished.inc({ kind });
    return out;
  }

  /**
   * The reply text to a request: the handler run in a server span on the caller's trace, its
   * result or its error in the reply envelope. `check` may refuse a reply the transport
   * cannot carry (it throws, and that error is answered instead).
   */
  async answer(
    pattern: string,
    meta: MessageMeta,
    handler: RequestHandler,
    payload: () => unknown,
    check?: (reply: string) => void,
  ): Promise<string> {
    try {
      const result = await traceIncoming(
        `process ${pattern}`,
        SpanKind.SERVER,
        this.attributes(meta.subject),
        meta.headers,
        () => handler(payload(), meta),
      );
      const reply = okReply(result, meta.subject, this.log);
      check?.(reply);
      return reply;
    } catch (err) {
      return errorReplyFor(err, meta.subject, this.log);
    }
  }

  /** An event to a subscriber, in a consumer span; a failing handler is logged, never rethrown. */
  async deliver(
    pattern: string,
    meta: MessageMeta,
    handler: EventHandler,
    payload: () => unknown,
  ): Promise<void> {
    try {
      await traceIncoming(
        `process ${pattern}`,
        SpanKind.CONSUMER,
        this.attributes(meta.subject),
        meta.headers,
        () => handler(payload(), meta),
      );
    } catch (err) {
      this.log.error({ err, subject: meta.subject }, 'event handler failed');
    }
  }

  /** A durable delivery, in a consumer span named after its stream and durable. */
  durable<T>(
    stream: string,
    durable: string,
    subject: string,
    headers: Headers,
    fn: (span: Span) => Promise<T>,
  ): Promise<T> {
    return traceIncoming(
      `process ${stream}/${durable}`,
      SpanKind.CONSUMER,
      this.attributes(subject, durable),
      headers,
      fn,
    );
  }
}

/** The instruments of a bus without a logger of its own (durable deliveries only log through their config). */
export const instrumentsFor = (system: string, log: Logger = silentLogger): BusInstruments =>
  new BusInstruments(system, log);

// ---- durable consumers -------------------------------------------------------------

export interface ResolvedConsumer {
  stream: string;
  durable: string;
  filterSubject?: string;
  ackWaitMs: number;
  maxDeliver: number;
  concurrency: number;
  deadLetterSubject: string;
  backoffMs: number;
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
    deadLetterSubject:
      def.deadLetterSubject ?? `dlq.${sanitizeName(def.stream)}.${sanitizeName(def.durable)}`,
    backoffMs: def.backoffMs ?? 1000,
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
  return r;
}

/** Delay before redelivering after the `deliveryCount`-th delivery failed: doubling, capped at 30 s. */
export function backoffDelay(backoffMs: number, deliveryCount: number): number {
  return Math.min(backoffMs * 2 ** Math.max(0, deliveryCount - 1), MAX_BACKOFF_MS);
}

/** The error recorded when the last allowed delivery ended without an outcome. */
export const noOutcomeError = (ackWaitMs: number): string =>
  `not acknowledged within ${ackWaitMs} ms on the last allowed delivery (handler too slow, or its process stopped)`;

/** Msg id of a dead letter, so a retried dead-lettering is de-duplicated by the DLQ stream. */
export const deadLetterMsgId = (stream: string, durable: string, seq: number): string =>
  `dlq:${stream}:${durable}:${seq}`;

// ---- bookkeeping -------------------------------------------------------------------

/** Promises still running (handlers), so that stop/close can wait for them. */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.running.size;
  }

  track<T>(p: Promise<T>): Promise<T> {
    const tracked = p.finally(() => {
      this.running.delete(tracked);
      if (this.running.size === 0) {
        const w = this.waiters;
        this.waiters = [];
        for (const resolve of w) resolve();
      }
    });
    this.running.add(tracked);
    // the caller handles the outcome of `p`; this copy only exists for bookkeeping
    tracked.catch(() => {});
    return tracked;
  }

  idle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** `SHA-256=<base64url>` with padding, the format the NATS object store writes. */
export function formatDigest(sha256: Buffer): string {
  const b64 = sha256.toString('base64url');
  return `SHA-256=${b64}${'='.repeat((4 - (b64.length % 4)) % 4)}`;
}

/** A delay that stop() can cut short. */
export function interruptibleDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done);
  });
}

import {
  INVALID_SPAN_CONTEXT,
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
import { RetryLater, ServiceError, httpStatusFor, type ServiceErrorCode } from '../errors.ts';
import type { Logger } from '../logger.ts';
import {
  busHandled,
  busHandlerSeconds,
  busMessagesPublished,
  busRequestSeconds,
  busRequests,
} from '../ops/metrics.ts';
import { tracingEnabled } from '../ops/telemetry.ts';
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

const preEncoded = new WeakMap<object, string>();

/**
 * Tells the bus that `value` serialises to `text`, so that the next send of that very object
 * uses it instead of serialising it again (`call` serialises a request to measure it, and
 * still hands the bus the value itself, so that whatever wraps the bus sees the request).
 */
export function rememberEncoded(value: unknown, text: string): void {
  if (typeof value === 'object' && value !== null) preEncoded.set(value, text);
}

/** Drops what rememberEncoded kept when the send failed before using it (a later send re-serialises). */
export function forgetEncoded(value: unknown): void {
  if (typeof value === 'object' && value !== null) preEncoded.delete(value);
}

/**
 * JSON text of a payload, or undefined for `undefined` (an empty message). Serialising on
 * send is what guarantees that a handler never shares an object with its caller.
 */
export function encodePayload(payload: unknown, subject: string): string | undefined {
  if (typeof payload === 'object' && payload !== null) {
    if (payload instanceof EncodedJson) return payload.text;
    const text = preEncoded.get(payload);
    if (text !== undefined) {
      preEncoded.delete(payload);
      return text;
    }
  }
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

const EMPTY_BYTES = new Uint8Array(0);
const utf8Decoder = new TextDecoder();

/** UTF-8 bytes of a message. Buffer.from: a slice of Node's pool, 2-3x cheaper than TextEncoder for small text. */
export function toBytes(text: string | undefined): Uint8Array {
  return text === undefined ? EMPTY_BYTES : Buffer.from(text, 'utf8');
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

/**
 * Records the handler side of a failed request, labelled by the pattern the handler
 * registered (a bounded set, unlike the subjects a wildcard handler receives).
 */
export function recordHandled(pattern: string, startedAt: number, err?: unknown): void {
  const outcome = err === undefined ? 'ok' : ServiceError.is(err) ? err.code : 'internal';
  busHandled.inc({ subject: pattern, outcome });
  busHandlerSeconds.observe({ subject: pattern }, (performance.now() - startedAt) / 1000);
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

/** The span a durable handler gets when nobody traces: recording nothing, made once. */
const UNTRACED_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : new Error(errorMessage(err)));
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
}

/** The caller's headers, checked, plus the trace context of the active span. */
function headersWithTrace(explicit: Headers | undefined): Headers {
  const headers = copyHeaders(explicit);
  propagation.inject(context.active(), headers);
  return headers;
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
      return await fn(headersWithTrace(explicit));
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
  if (span !== UNTRACED_SPAN) failSpan(span, err);
}

export { SpanKind };

// ---- the hot path ------------------------------------------------------------------

/** Returned by every publish that went out: one promise for all of them, not one each. */
const SENT: Promise<void> = Promise.resolve();

/** A publish that went out, or the error it met, as the promise the Bus API returns. */
export function sent(err?: unknown): Promise<void> {
  return err === undefined ? SENT : Promise.reject(err);
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    v !== null &&
    (typeof v === 'object' || typeof v === 'function') &&
    typeof (v as { then?: unknown }).then === 'function'
  );
}

/**
 * Logs a durable handler's failure: at warn, but a RetryLater ("not yet") before the last
 * delivery at debug (a backlog of waiting messages would fill the log with expected noise).
 */
export function logHandlerFailure(
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

/** Refuses (throws) a reply that the transport cannot carry. */
export type ReplyCheck = (reply: string, subject: string) => void;

/** The labelled metric children of one request subject, looked up once instead of per request. */
interface SubjectMetrics {
  ok: { inc(): void };
  seconds: { observe(v: number): void };
}

/** Request subjects are `svc.<service>.<action>`: a few dozen. The bound only guards against misuse. */
const MAX_CACHED_SUBJECTS = 1000;

/**
 * The ok-outcome counter and the timer of one subject (or pattern), made by `make` once and
 * kept in `cache`, so that a request or handler costs no label lookup.
 */
function cachedMetrics(
  cache: Map<string, SubjectMetrics>,
  key: string,
  make: (key: string) => SubjectMetrics,
): SubjectMetrics {
  let m = cache.get(key);
  if (!m) {
    if (cache.size >= MAX_CACHED_SUBJECTS) cache.clear();
    m = make(key);
    cache.set(key, m);
  }
  return m;
}
const requestMetrics = (subject: string): SubjectMetrics => ({
  ok: busRequests.labels(subject, 'ok'),
  seconds: busRequestSeconds.labels(subject),
});
const handlerMetrics = (pattern: string): SubjectMetrics => ({
  ok: busHandled.labels(pattern, 'ok'),
  seconds: busHandlerSeconds.labels(pattern),
});
const publishedCore = busMessagesPublished.labels('core');
const publishedDurable = busMessagesPublished.labels('durable');

/**
 * The tracing and metrics around every send and receive, shared by both buses so that a span
 * or a counter cannot differ between the embedded mode and the cluster. Each bus supplies
 * only its transport: how a message goes out, how a reply comes back.
 *
 * Whether to trace is decided once, when the bus is created (`tracingEnabled()`: a tracer
 * was registered by startTelemetry). Without one, messages take a plain path: no spans, no
 * header injection or extraction, no OpenTelemetry call at all, and no promise of the bus's
 * own per published or received message.
 */
export class BusInstruments {
  private readonly bySubject = new Map<string, SubjectMetrics>();
  private readonly byPattern = new Map<string, SubjectMetrics>();

  constructor(
    private readonly system: string,
    private readonly log: Logger,
    readonly tracing: boolean = tracingEnabled(),
  ) {}

  private attributes(subject: string, durable?: string): Attributes {
    return {
      'messaging.system': this.system,
      'messaging.destination.name': subject,
      ...(durable !== undefined ? { 'messaging.consumer.group.name': durable } : {}),
    };
  }

  /** A request: a client span around `send` (when tracing), then the request metrics with its outcome. */
  request<Res>(
    subject: string,
    headers: Headers | undefined,
    send: (headers: Headers | undefined) => Promise<Res>,
  ): Promise<Res> {
    const started = performance.now();
    let out: Promise<Res>;
    if (this.tracing) {
      out = traceOutgoing(`send ${subject}`, SpanKind.CLIENT, this.attributes(subject), headers, send);
    } else {
      try {
        out = send(headers === undefined ? undefined : copyHeaders(headers));
      } catch (err) {
        out = Promise.reject(err);
      }
    }
    return out.then(
      (res) => {
        const m = cachedMetrics(this.bySubject, subject, requestMetrics);
        m.ok.inc();
        m.seconds.observe((performance.now() - started) / 1000);
        return res;
      },
      (err: unknown) => {
        recordRequest(subject, started, err);
        throw err;
      },
    );
  }

  /**
   * A core publish. Without tracing the bus sends by itself (`headers` as given, checked)
   * and calls `published()`: no closure, no span. With tracing, `send` runs in a producer
   * span with the trace context added to the headers.
   */
  publishTraced(subject: string, headers: Headers | undefined, send: (headers: Headers) => void): void {
    tracer.startActiveSpan(
      'publish',
      { kind: SpanKind.PRODUCER, attributes: this.attributes(subject) },
      (span) => {
        try {
          send(headersWithTrace(headers));
        } catch (err) {
          failSpan(span, err);
          throw err;
        } finally {
          span.end();
        }
      },
    );
    publishedCore.inc();
  }

  /** Counts a core publish that went out on the plain path. */
  published(): void {
    publishedCore.inc();
  }

  /** A durable publish: a producer span around `send` (when tracing), counted once stored. */
  async publishDurable<T>(
    subject: string,
    headers: Headers | undefined,
    send: (headers: Headers | undefined) => Promise<T>,
  ): Promise<T> {
    const out = this.tracing
      ? await traceOutgoing('publish', SpanKind.PRODUCER, this.attributes(subject), headers, send)
      : await send(headers === undefined ? undefined : copyHeaders(headers));
    publishedDurable.inc();
    return out;
  }

  private replyFor(result: unknown, subject: string, check: ReplyCheck | undefined): string {
    try {
      const reply = okReply(result, subject, this.log);
      check?.(reply, subject);
      return reply;
    } catch (err) {
      return errorReplyFor(err, subject, this.log);
    }
  }

  private handled(pattern: string, started: number): void {
    const m = cachedMetrics(this.byPattern, pattern, handlerMetrics);
    m.ok.inc();
    m.seconds.observe((performance.now() - started) / 1000);
  }

  private handlerFailed(pattern: string, started: number, err: unknown, subject: string): string {
    recordHandled(pattern, started, err);
    return errorReplyFor(err, subject, this.log);
  }

  /**
   * The reply to a request: the handler run (in a server span on the caller's trace, when
   * tracing) on the payload `decode` makes of `data`, its result or its error in the reply
   * envelope. `check` may refuse a reply the transport cannot carry (it throws, and that
   * error is answered instead). A handler that returns synchronously is answered
   * synchronously; otherwise the promise resolves (never rejects) with the reply.
   */
  answer<D>(
    pattern: string,
    meta: MessageMeta,
    handler: RequestHandler,
    data: D,
    decode: (data: D) => unknown,
    check?: ReplyCheck,
  ): string | Promise<string> {
    const subject = meta.subject;
    const started = performance.now();
    if (this.tracing) {
      return traceIncoming(
        `process ${pattern}`,
        SpanKind.SERVER,
        this.attributes(subject),
        meta.headers,
        () => handler(decode(data), meta),
      ).then(
        (result) => {
          this.handled(pattern, started);
          return this.replyFor(result, subject, check);
        },
        (err: unknown) => this.handlerFailed(pattern, started, err, subject),
      );
    }
    let result: unknown;
    try {
      result = handler(decode(data), meta);
    } catch (err) {
      return this.handlerFailed(pattern, started, err, subject);
    }
    if (!isThenable(result)) {
      this.handled(pattern, started);
      return this.replyFor(result, subject, check);
    }
    return Promise.resolve(result).then(
      (r) => {
        this.handled(pattern, started);
        return this.replyFor(r, subject, check);
      },
      (err: unknown) => this.handlerFailed(pattern, started, err, subject),
    );
  }

  private eventFailed(err: unknown, subject: string): void {
    this.log.error({ err, subject }, 'event handler failed');
  }

  /**
   * An event to a subscriber (in a consumer span when tracing); a failing handler is logged,
   * never rethrown. A handler still running is counted in `inFlight` until it settles.
   */
  deliver<D>(
    pattern: string,
    meta: MessageMeta,
    handler: EventHandler,
    data: D,
    decode: (data: D) => unknown,
    inFlight: InFlight,
  ): void {
    if (this.tracing) {
      inFlight.begin();
      traceIncoming(
        `process ${pattern}`,
        SpanKind.CONSUMER,
        this.attributes(meta.subject),
        meta.headers,
        () => handler(decode(data), meta),
      )
        .then(undefined, (err: unknown) => this.eventFailed(err, meta.subject))
        .then(inFlight.end, inFlight.end);
      return;
    }
    let result: unknown;
    try {
      result = handler(decode(data), meta);
    } catch (err) {
      this.eventFailed(err, meta.subject);
      return;
    }
    if (!isThenable(result)) return;
    inFlight.begin();
    result.then(inFlight.end, (err: unknown) => {
      this.eventFailed(err, meta.subject);
      inFlight.end();
    });
  }

  /** A durable delivery, in a consumer span named after its stream and durable (when tracing). */
  durable<T>(
    stream: string,
    durable: string,
    subject: string,
    headers: Headers,
    fn: (span: Span) => Promise<T>,
  ): Promise<T> {
    if (!this.tracing) return fn(UNTRACED_SPAN);
    return traceIncoming(
      `process ${stream}/${durable}`,
      SpanKind.CONSUMER,
      this.attributes(subject, durable),
      headers,
      fn,
    );
  }

  /** Trace headers of the active context alone (for messages the bus itself sends, e.g. dead letters). */
  activeTraceHeaders(): Headers {
    return this.tracing ? headersWithTrace(undefined) : {};
  }
}

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
export const noOutcomeError = (ackWaitMs: number): string =>
  `not acknowledged within ${ackWaitMs} ms on the last allowed delivery (handler too slow, or its process stopped)`;

/** Msg id of a dead letter, so a retried dead-lettering is de-duplicated by the DLQ stream. */
export const deadLetterMsgId = (stream: string, durable: string, seq: number): string =>
  `dlq:${stream}:${durable}:${seq}`;

// ---- bookkeeping -------------------------------------------------------------------

/**
 * Handlers still running, so that stop/close can wait for them. A count rather than a set of
 * promises: the hot path marks begin and end without allocating anything.
 */
export class InFlight {
  private count = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.count;
  }

  begin(): void {
    this.count++;
  }

  /** A property, so it can be passed as a callback as it is. */
  readonly end = (): void => {
    if (--this.count > 0 || this.waiters.length === 0) return;
    const w = this.waiters;
    this.waiters = [];
    for (const resolve of w) resolve();
  };

  /** Counts `p` until it settles; the caller handles its outcome, the returned copy only mirrors it. */
  track<T>(p: Promise<T>): Promise<T> {
    this.begin();
    const tracked = p.finally(this.end);
    tracked.catch(() => {});
    return tracked;
  }

  idle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
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

import type { Attributes, Span } from '@opentelemetry/api';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import {
  busHandled,
  busHandlerSeconds,
  busMessagesPublished,
  busRequestSeconds,
  busRequests,
} from '../ops/metrics.ts';
import { tracingEnabled } from '../ops/telemetry.ts';
import { errorReplyFor, okReply, type Reply } from './reply.ts';
import {
  SpanKind,
  UNTRACED_SPAN,
  copyHeaders,
  failSpan,
  headersWithTrace,
  traceIncoming,
  traceOutgoing,
  tracer,
} from './trace.ts';
import type { EventHandler, Headers, MessageMeta, RequestHandler } from './types.ts';
import type { InFlight } from './util.ts';

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    v !== null &&
    (typeof v === 'object' || typeof v === 'function') &&
    typeof (v as { then?: unknown }).then === 'function'
  );
}

/** Refuses (throws) a reply that the transport cannot carry. */
export type ReplyCheck = (reply: Reply, subject: string) => void;

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

/** Records the request metrics; `outcome` is `ok` or the error code. */
function recordRequest(subject: string, startedAt: number, err?: unknown): void {
  const outcome = err === undefined ? 'ok' : ServiceError.is(err) ? err.code : 'internal';
  busRequests.inc({ subject, outcome });
  busRequestSeconds.observe({ subject }, (performance.now() - startedAt) / 1000);
}

/**
 * Records the handler side of a failed request, labelled by the pattern the handler
 * registered (a bounded set, unlike the subjects a wildcard handler receives).
 */
function recordHandled(pattern: string, startedAt: number, err?: unknown): void {
  const outcome = err === undefined ? 'ok' : ServiceError.is(err) ? err.code : 'internal';
  busHandled.inc({ subject: pattern, outcome });
  busHandlerSeconds.observe({ subject: pattern }, (performance.now() - startedAt) / 1000);
}

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

  private replyFor(result: unknown, subject: string, check: ReplyCheck | undefined): Reply {
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
  ): Reply | Promise<Reply> {
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

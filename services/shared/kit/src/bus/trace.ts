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
import { ServiceError } from '../errors.ts';
import type { Headers } from './types.ts';
import { errorMessage } from './util.ts';

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

export const tracer = trace.getTracer('@chronicler/kit/bus');

/** The span a durable handler gets when nobody traces: recording nothing, made once. */
export const UNTRACED_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

export function failSpan(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : new Error(errorMessage(err)));
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(err) });
}

/** The caller's headers, checked, plus the trace context of the active span. */
export function headersWithTrace(explicit: Headers | undefined): Headers {
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

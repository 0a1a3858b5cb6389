import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracingEnabled } from '../ops/telemetry.ts';

type QueryFn<R> = (sql: string, params?: unknown[]) => Promise<R>;

const tracer = trace.getTracer('@chronicler/kit/db');
/** Statements longer than this are cut in the span: a trace is for finding the query, not storing it. */
const MAX_STATEMENT_CHARS = 2000;

/** `SELECT`, `INSERT`, … : the first keyword, for the span's operation name. */
function operationOf(sql: string): string {
  const m = /^\s*([a-z]+)/i.exec(sql);
  return (m?.[1] ?? 'query').toUpperCase();
}

/**
 * Wraps a query function so that each call is a `db.query` client span, child of whatever
 * is active (a bus handler, an HTTP request). The span carries the statement text, which
 * has `$1`-style placeholders, and never the parameter values (user data, tokens). Decided
 * once when the handle is opened: without a tracer the function is returned unchanged.
 */
export function traceQueries<R>(system: 'postgresql', driver: 'pg' | 'pglite', fn: QueryFn<R>): QueryFn<R> {
  if (!tracingEnabled()) return fn;
  return (sql, params) =>
    tracer.startActiveSpan(
      'db.query',
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'db.system.name': system,
          'db.operation.name': operationOf(sql),
          'db.query.text': sql.length > MAX_STATEMENT_CHARS ? `${sql.slice(0, MAX_STATEMENT_CHARS)}…` : sql,
          'chronicler.db.driver': driver,
        },
      },
      async (span) => {
        try {
          return await fn(sql, params);
        } catch (err) {
          span.recordException(err as Error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
          throw err;
        } finally {
          span.end();
        }
      },
    );
}

import { activeTraceId } from '@chronicler/kit';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** A W3C traceparent header: version, trace id, parent span id, flags. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The request's trace id: its span's when tracing is on (the HTTP instrumentation keeps the
 * span active through the request), else the caller's `traceparent`, so a line can still be
 * joined to the trace of the proxy or client that sent it.
 */
function traceIdOf(request: FastifyRequest): string | undefined {
  const active = activeTraceId();
  if (active) return active;
  const header = request.headers.traceparent;
  return typeof header === 'string' ? TRACEPARENT.exec(header)?.[1] : undefined;
}

/** The access line: what an operator needs, never the URL (its query may carry values). */
function accessLine(request: FastifyRequest, status: number, durationMs: number) {
  return {
    reqId: request.id,
    method: request.method,
    route: request.routeOptions.url ?? 'unmatched',
    status,
    durationMs: Math.round(durationMs * 10) / 10,
    traceId: traceIdOf(request),
    userId: request.user?.id,
  };
}

/**
 * The gateway's access log: one JSON line at info per answered request (message `access`),
 * with the method, the route pattern (`/api/transcripts/:id`, never the URL: a query value
 * or an id in it would reach the log), the status, the duration in ms, the request and trace
 * ids and the signed-in user's id. ACCESS_LOG_SAMPLE keeps that fraction of the lines (0: no
 * access log), spread evenly over the requests; 5xx answers are always written while it is
 * above 0. A response that failed while being sent is one line at error.
 *
 * Written through the root logger, not the request's: a per-request child logger costs its
 * bindings' copy and redaction on every request (lib/lazy-logger.ts), and the line carries
 * the request id itself. fastify's own controller writes two lines per request with the raw
 * URL; this replaces it.
 *
 * A WebSocket upgrade never completes as HTTP (the socket takes the connection over), so its
 * one line is written when it arrives, with status 101.
 */
export class RequestLogController extends LogController {
  private credit = 0;

  /** @param sample the fraction of requests logged, 0 to 1. */
  constructor(private readonly sample = 1) {
    super();
  }

  /** Whether this request's line is kept: every 1/sample-th one, evenly. */
  private take(status: number): boolean {
    if (this.sample <= 0) return false;
    if (status >= 500 || this.sample >= 1) return true;
    this.credit += this.sample;
    if (this.credit < 1) return false;
    this.credit -= 1;
    return true;
  }

  override incomingRequest(request: FastifyRequest): void {
    if (request.headers.upgrade === undefined || !this.take(101)) return;
    request.server.log.info(accessLine(request, 101, 0), 'access');
  }

  /** The completion line says 404; fastify would add an info line of its own. */
  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      request.server.log.error(
        { ...accessLine(request, reply.statusCode, reply.elapsedTime), err: error },
        'request errored',
      );
      return;
    }
    if (request.headers.upgrade !== undefined || !this.take(reply.statusCode)) return;
    request.server.log.info(accessLine(request, reply.statusCode, reply.elapsedTime), 'access');
  }
}

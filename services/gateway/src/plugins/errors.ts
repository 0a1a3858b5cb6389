import { httpStatusFor, ServiceError } from '@chronicler/kit';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/** Seconds a client is asked to wait before retrying a 503 (RFC 9110 §10.2.3). */
const RETRY_AFTER_SECONDS = 5;

const GENERIC: Record<number, string> = {
  413: 'The request is too large.',
  500: 'Internal server error',
  503: 'Service temporarily unavailable. Please try again.',
  504: 'The service took too long to answer. Please try again.',
};
const genericFor = (status: number): string =>
  GENERIC[status] ?? (status >= 500 ? GENERIC[500]! : 'The request could not be processed.');

/**
 * Words that only our plumbing uses: bus subjects (`svc.transcript.get`, with or without the
 * deployment's prefix), NATS, streams, the blob store. The kit's transport errors name them;
 * a message a service wrote for the user never does.
 */
const INTERNAL_WORDS =
  /\b(?:svc|evt|live)\.[\w-]|\bNATS\b|JetStream|\bblob store\b|\bthe bus\b|\bstream\b|\bSQL\b|\bat [\w.<>]+ \(/i;

/** Whether a message would show the user something of the system's insides. */
const revealsInternals = (message: string): boolean => INTERNAL_WORDS.test(message);

/**
 * What the user is told for a service error: its message when it is meant for them (below
 * 500, or 'unavailable'/'timeout' worded by a service, such as 'The AI service is
 * unavailable'), never a message that names a subject or other internals.
 */
export function publicMessage(err: ServiceError): string {
  const status = httpStatusFor[err.code];
  if (err.code === 'internal' || status === 500) return genericFor(500);
  return revealsInternals(err.message) ? genericFor(status) : err.message;
}

/** Fastify's own refusals, in words for a person instead of fastify's. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported content type. Send JSON (application/json).',
  FST_ERR_CTP_BODY_TOO_LARGE: GENERIC[413]!,
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty but its content type says JSON.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'The request body does not match its Content-Length.',
  FST_ERR_BAD_URL: 'The address is not valid (bad percent-encoding).',
  FST_ERR_MAX_PARAM_LENGTH: 'Not found',
};

function send(reply: FastifyReply, status: number, detail: string): FastifyReply {
  if (status === 503) reply.header('retry-after', RETRY_AFTER_SECONDS);
  return reply.code(status).type('application/json; charset=utf-8').send({ detail });
}

/**
 * Errors the router raises before any route or hook runs (fastify's `frameworkErrors`):
 * a bad percent-encoding answers 400 and an over-long path parameter 404 (no object has
 * such an id), both as `{detail}` like every other error.
 */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 404 : err.code === 'FST_ERR_BAD_URL' ? 400 : 500;
  if (status >= 500) req.log.error({ err }, 'router error');
  void send(reply, status, status >= 500 ? genericFor(status) : FASTIFY_MESSAGES[err.code]!);
}

/**
 * Every error leaves the gateway as `{"detail": "<message>"}` (the specification's server
 * error body). Service errors keep their message when it is meant for the user; anything
 * else is logged and answered with a generic message, never a stack, a subject or SQL.
 * Every 503 carries Retry-After.
 */
export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError | ServiceError | Error, req, reply) => {
      if (err instanceof ServiceError) {
        const status = httpStatusFor[err.code];
        if (err.code === 'rate_limited' && typeof err.details?.retryAfterMs === 'number') {
          reply.header('retry-after', Math.max(1, Math.ceil(err.details.retryAfterMs / 1000)));
        }
        const detail = publicMessage(err);
        if (status >= 500) req.log.error({ err }, 'service error');
        else if (detail !== err.message) req.log.warn({ err }, 'service error hidden from the client');
        return send(reply, status, detail);
      }
      const fe = err as FastifyError;
      if (fe.validation || fe.code === 'FST_ERR_VALIDATION') return send(reply, 400, fe.message);
      const status = fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 600 ? fe.statusCode : 500;
      if (status >= 500) {
        req.log.error({ err }, 'request failed');
        return send(reply, status, genericFor(status));
      }
      const known = fe.code ? FASTIFY_MESSAGES[fe.code] : undefined;
      const detail = known ?? (revealsInternals(fe.message) ? genericFor(status) : fe.message);
      return send(reply, status, detail);
    });

    // Replies that did not pass through the handler above (e.g. GET /api/health when a
    // service is down) get their Retry-After too.
    app.addHook('onSend', async (_req, reply, payload) => {
      if (reply.statusCode === 503 && !reply.hasHeader('retry-after')) {
        reply.header('retry-after', RETRY_AFTER_SECONDS);
      }
      return payload;
    });
  },
  { name: 'errors' },
);

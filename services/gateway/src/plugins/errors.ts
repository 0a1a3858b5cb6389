import { httpStatusFor, ServiceError } from '@chronicler/kit';
import type { FastifyError } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Every error leaves the gateway as `{"detail": "<message>"}` (the specification's
 * server error body). Service errors keep their message below 500; anything else is
 * logged and answered with a generic message, never a stack trace.
 */
export default fp(
  async (app) => {
    app.setErrorHandler((err: FastifyError | ServiceError | Error, req, reply) => {
      if (err instanceof ServiceError) {
        const status = httpStatusFor[err.code];
        if (err.code === 'rate_limited' && typeof err.details?.retryAfterMs === 'number') {
          reply.header('retry-after', Math.max(1, Math.ceil(err.details.retryAfterMs / 1000)));
        }
        if (status >= 500) req.log.error({ err }, 'service error');
        return reply
          .code(status)
          .send({ detail: status >= 500 && err.code === 'internal' ? 'Internal server error' : err.message });
      }
      const fe = err as FastifyError;
      if (fe.validation) {
        return reply.code(400).send({ detail: fe.message });
      }
      const status = fe.statusCode && fe.statusCode >= 400 ? fe.statusCode : 500;
      if (status >= 500) {
        req.log.error({ err }, 'request failed');
        return reply.code(status).send({ detail: 'Internal server error' });
      }
      return reply.code(status).send({ detail: fe.message });
    });
  },
  { name: 'errors' },
);

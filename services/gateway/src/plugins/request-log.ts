import type { Logger } from '@chronicler/kit';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

/** The loggers are pino's (app.ts passes the kit's): skip building a line nobody will see. */
const debugOn = (log: FastifyBaseLogger): boolean => (log as Logger).isLevelEnabled('debug');

/**
 * One log line per request, at debug, when it is answered: method, URL (credentials in the
 * query blanked by the logger's serializer), status and time. fastify's own controller
 * writes two info lines per request ("incoming request" and "request completed"): at the
 * default level that was a tenth of the gateway's CPU under load (issue 16), for lines an
 * ingress access log already has. A response that failed while being sent is still one line,
 * at error; errors that were handled are logged where they are (plugins/errors.ts).
 *
 * A WebSocket upgrade never completes as HTTP (the socket takes the connection over), so its
 * one line is written when it arrives.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (request.headers.upgrade === undefined || !debugOn(request.log)) return;
    request.log.debug({ method: request.method, url: request.url }, 'upgrade request');
  }

  /** The completion line says 404; fastify would add an info line of its own. */
  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else if (debugOn(reply.log)) reply.log.debug(line, 'request completed');
  }
}

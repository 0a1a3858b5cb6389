import { AiRateLimitedError, AiUnavailableError } from '@chronicler/ai';
import { ServiceError, type Logger } from '@chronicler/kit';

/**
 * Engine errors as the gateway shows them: a rate limit is 429, an unreachable model 503. The
 * user sees the product's words; the log keeps the reason (the server, the status, what the
 * model's answer missed), so an operator can tell a refused key from a slow server.
 */
export function asServiceError(err: unknown, logger: Logger): unknown {
  if (err instanceof AiRateLimitedError) {
    logger.info({ retryAfterMs: err.retryAfterMs }, 'summary refused: the user is over the AI rate limit');
    return new ServiceError('rate_limited', err.message, { retryAfterMs: err.retryAfterMs });
  }
  if (err instanceof AiUnavailableError) {
    logger.warn({ reason: err.message }, `summary failed: ${err.message}`);
    return new ServiceError('unavailable', 'The AI service is unavailable. Please try again later.');
  }
  return err;
}

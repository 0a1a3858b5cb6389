import { AiRateLimitedError, AiUnavailableError } from '@chronicler/ai';
import { ServiceError } from '@chronicler/kit';

/** Engine errors as the gateway shows them: a rate limit is 429, an unreachable model 503. */
export function asServiceError(err: unknown): unknown {
  if (err instanceof AiRateLimitedError) {
    return new ServiceError('rate_limited', err.message, { retryAfterMs: err.retryAfterMs });
  }
  if (err instanceof AiUnavailableError) {
    return new ServiceError('unavailable', 'The AI service is unavailable. Please try again later.');
  }
  return err;
}

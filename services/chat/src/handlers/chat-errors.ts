import { AiRateLimitedError, AiUnavailableError } from '@chronicler/ai';
import { CHAT_MESSAGE_MAX_CHARS, tooLongMessage } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';

export const bad = (message: string): ServiceError => new ServiceError('bad_request', message);

/** A question, trimmed; blank, oversized or NUL-carrying ones are refused before anything is stored. */
export function checkQuestion(content: string): string {
  const trimmed = content.trim();
  if (!trimmed) throw bad('Message cannot be empty');
  if (trimmed.length > CHAT_MESSAGE_MAX_CHARS) throw bad(tooLongMessage('Message', CHAT_MESSAGE_MAX_CHARS));
  // PostgreSQL text cannot hold NUL: refuse it rather than fail with a 500 on insert.
  if (trimmed.includes('\u0000')) throw bad('Message cannot contain NUL characters');
  return trimmed;
}

/** The engine's failures as errors the gateway shows: 429 with its wait, 503 when no model answers. */
export function aiFailure(err: unknown): unknown {
  if (err instanceof AiRateLimitedError) {
    return new ServiceError('rate_limited', err.message, { retryAfterMs: err.retryAfterMs });
  }
  if (err instanceof AiUnavailableError) {
    return new ServiceError('unavailable', 'The AI service is unavailable. Please try again later.');
  }
  return err;
}

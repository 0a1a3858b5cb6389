/**
 * The error a service handler throws to tell its caller what went wrong. It crosses the
 * bus intact (code + message) so the gateway can map `code` to an HTTP status and show
 * `message` to the user for client errors.
 */
export type ServiceErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'timeout'
  | 'internal';

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    /** Extra machine-readable data, e.g. `retryAfterMs` for `rate_limited`. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  toJSON(): { code: ServiceErrorCode; message: string; details?: Record<string, unknown> } {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }

  static is(err: unknown): err is ServiceError {
    return err instanceof ServiceError;
  }
}

/**
 * Thrown by a durable consumer's handler for a message that cannot be handled yet (what it
 * depends on has not arrived): the message comes back after the consumer's backoff. It is
 * expected, so the bus logs it at debug, not as a failure, until the last delivery.
 */
export class RetryLater extends Error {
  override readonly name = 'RetryLater';
}

/** HTTP status for each error code; the gateway uses it for every bus error. */
export const httpStatusFor: Record<ServiceErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  timeout: 504,
  internal: 500,
};

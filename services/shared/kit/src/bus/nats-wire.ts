import { ErrorCode, headers as natsHeaders, type MsgHdrs } from 'nats';
import { ServiceError } from '../errors.ts';
import { busClosed } from './reply.ts';
import type { Headers } from './types.ts';
import { errorMessage } from './util.ts';

// What the NATS bus and its consumers say to the nats.js client: timeouts, error codes, headers.

export const JS_TIMEOUT_MS = 5000;
/** Upper bound for graceful steps that need the server (drain), so close() ends during an outage too. */
export const DRAIN_TIMEOUT_MS = 5000;

// JetStream API error codes (nats-server's errors.json) this file reacts to.
const JS_ERR_STREAM_NOT_FOUND = 10059;
const JS_ERR_CONSUMER_NOT_FOUND = 10014;
export const JS_ERR_STREAM_SUBJECT_OVERLAP = 10065;

export function apiErrCode(err: unknown): number | undefined {
  return (err as { api_error?: { err_code?: number } } | null)?.api_error?.err_code;
}

export function natsCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export const isStreamNotFound = (err: unknown) =>
  apiErrCode(err) === JS_ERR_STREAM_NOT_FOUND || /stream not found/i.test(errorMessage(err));
export const isConsumerNotFound = (err: unknown) =>
  apiErrCode(err) === JS_ERR_CONSUMER_NOT_FOUND || /consumer (not found|deleted)/i.test(errorMessage(err));
export const isAlreadyInUse = (err: unknown) => /already (in use|exists)/i.test(errorMessage(err));

/** Transport errors as the ServiceErrors callers are promised. */
export function transportError(err: unknown, what: string): ServiceError {
  if (ServiceError.is(err)) return err;
  switch (natsCode(err)) {
    case ErrorCode.ConnectionClosed:
    case ErrorCode.ConnectionDraining:
      return busClosed();
    case ErrorCode.MaxPayloadExceeded:
      return new ServiceError('payload_too_large', `Message too large for ${what}`);
    case ErrorCode.Timeout:
      return new ServiceError('timeout', `NATS did not answer ${what} in time`);
    default:
      return new ServiceError('unavailable', `NATS error on ${what}: ${errorMessage(err)}`);
  }
}

export function toNatsHeaders(h: Headers | undefined): MsgHdrs | undefined {
  if (h === undefined) return undefined;
  let out: MsgHdrs | undefined;
  for (const k in h) {
    out ??= natsHeaders();
    out.set(k, h[k]!);
  }
  return out;
}

/** Message headers for the handler; the JetStream ones (`Nats-*`) are the bus's business. */
export function fromNatsHeaders(h: MsgHdrs | undefined): Headers {
  const out: Headers = {};
  if (!h) return out;
  for (const [k, values] of h) {
    if (/^nats-/i.test(k)) continue;
    out[k] = values.join(', ');
  }
  return out;
}

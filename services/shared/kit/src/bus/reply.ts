import { ServiceError, httpStatusFor, type ServiceErrorCode } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { EncodedJson, decodePayload, fromBytes } from './codec.ts';

export const DEFAULT_REQUEST_TIMEOUT_MS = 5000;

// ---- request/reply -----------------------------------------------------------------

/**
 * What a responder sends back. Errors travel inside the reply rather than as a transport
 * failure so the caller can tell "the service said no" (a ServiceError with its code) from
 * "nobody answered" (unavailable / timeout).
 */
type ReplyEnvelope =
  | { ok: true; data?: unknown }
  | { ok: false; error: { code: ServiceErrorCode; message: string; details?: Record<string, unknown> } };

const KNOWN_CODES = new Set(Object.keys(httpStatusFor));

/** How okReply begins the text of a result. */
const OK_DATA_PREFIX = '{"ok":true,"data":';
const OK_DATA_PREFIX_BYTES = Buffer.from(OK_DATA_PREFIX, 'latin1');
const CLOSING_BRACE = 0x7d;

/** What a responder sends: the envelope's text, or a result that is JSON already in its envelope. */
export type Reply = string | EncodedReply;

/** Results at least this large (bytes, or UTF-16 units for text) are written by EncodedReply.toBytes itself. */
const ENCODED_REPLY_WRITE_MIN = 16 * 1024;

/**
 * The reply to a handler that returned an EncodedJson: the envelope's prefix, the result and
 * the closing brace, joined only when a transport asks for text. `toBytes` writes a large
 * result straight after the prefix in one buffer. Joined first, the reply was a new string
 * that V8 copied flat again to encode it: for a 500,000-character session, 9.6 % of the
 * transcript service's CPU samples while it was read under load.
 */
export class EncodedReply {
  #text: string | undefined;

  constructor(readonly result: EncodedJson) {}

  get text(): string {
    this.#text ??= `${OK_DATA_PREFIX}${this.result.text}}`;
    return this.#text;
  }

  toBytes(): Uint8Array {
    if (this.result.size < ENCODED_REPLY_WRITE_MIN) return Buffer.from(this.text, 'utf8');
    const body = this.result.body;
    const at = OK_DATA_PREFIX_BYTES.byteLength;
    const n = typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
    const out = Buffer.allocUnsafe(at + n + 1);
    OK_DATA_PREFIX_BYTES.copy(out, 0);
    if (typeof body === 'string') out.write(body, at, n, 'utf8');
    else body.copy(out, at);
    out[at + n] = CLOSING_BRACE;
    return out;
  }
}

/** A reply as text (the in-process bus, size checks). */
export const replyText = (reply: Reply): string => (typeof reply === 'string' ? reply : reply.text);

/** The reply for a handler's result; a result that cannot be serialised becomes `internal`. */
export function okReply(result: unknown, subject: string, log: Logger): Reply {
  if (result instanceof EncodedJson) return new EncodedReply(result);
  try {
    return JSON.stringify({ ok: true, data: result });
  } catch (err) {
    log.error({ err, subject }, 'bus handler returned a value that is not JSON-serialisable');
    return errorReplyFor(new ServiceError('internal', `Internal error in ${subject}`), subject, log);
  }
}

/**
 * The reply text for a thrown error. A ServiceError keeps its code, message and details;
 * anything else is logged here with its stack and reaches the caller only as `internal`,
 * because messages of unexpected errors (SQL, file paths) are not for other services' users.
 */
export function errorReplyFor(err: unknown, subject: string, log: Logger): string {
  const se = ServiceError.is(err) ? err : internalErrorFor(err, subject, log);
  try {
    return JSON.stringify({ ok: false, error: se.toJSON() });
  } catch {
    // details that cannot be serialised (a cycle, a BigInt) are dropped, code and message kept
    return JSON.stringify({ ok: false, error: { code: se.code, message: se.message } });
  }
}

function internalErrorFor(err: unknown, subject: string, log: Logger): ServiceError {
  log.error({ err, subject }, 'bus handler failed');
  return new ServiceError('internal', `Internal error in ${subject}`);
}

/** Turns a reply text into the handler's result, or throws the ServiceError it carries. */
export function unwrapReply<Res>(text: string | undefined, subject: string): Res {
  let envelope: unknown;
  try {
    envelope = decodePayload(text);
  } catch {
    throw new ServiceError('internal', `Malformed reply from ${subject}`);
  }
  if (
    typeof envelope !== 'object' ||
    envelope === null ||
    typeof (envelope as { ok?: unknown }).ok !== 'boolean'
  ) {
    throw new ServiceError('internal', `Malformed reply from ${subject}`);
  }
  const e = envelope as ReplyEnvelope;
  if (e.ok) return e.data as Res;
  const code = KNOWN_CODES.has(e.error?.code) ? e.error.code : 'internal';
  const message = typeof e.error?.message === 'string' ? e.error.message : `Error from ${subject}`;
  const details = e.error?.details && typeof e.error.details === 'object' ? e.error.details : undefined;
  throw new ServiceError(code, message, details);
}

/**
 * Like unwrapReply, but a result comes as its JSON text (EncodedJson), cut out of the envelope
 * without parsing it: for a caller that passes the result on as JSON (the gateway's reply to a
 * browser), parsing it only to serialise it again costs two passes over it (a 500,000-character
 * session: its largest copies). undefined for a result of undefined; an error as unwrapReply.
 */
export function unwrapEncodedReply(
  reply: string | Uint8Array | undefined,
  subject: string,
): EncodedJson | undefined {
  if (reply instanceof Uint8Array) {
    // The same cut on the message's bytes (a view, no copy): the prefix is ASCII.
    if (reply.byteLength > OK_DATA_PREFIX_BYTES.byteLength && reply[reply.byteLength - 1] === CLOSING_BRACE) {
      const head = reply.subarray(0, OK_DATA_PREFIX_BYTES.byteLength);
      if (Buffer.from(head.buffer, head.byteOffset, head.byteLength).equals(OK_DATA_PREFIX_BYTES)) {
        return new EncodedJson(reply.subarray(OK_DATA_PREFIX_BYTES.byteLength, reply.byteLength - 1));
      }
    }
    reply = fromBytes(reply);
  }
  const text = reply;
  // okReply writes every result as exactly this prefix, the result's JSON and the closing brace.
  if (text !== undefined && text.startsWith(OK_DATA_PREFIX) && text.endsWith('}')) {
    return new EncodedJson(text.slice(OK_DATA_PREFIX.length, -1));
  }
  const data = unwrapReply<unknown>(text, subject);
  return data === undefined ? undefined : new EncodedJson(JSON.stringify(data));
}

export const noResponders = (subject: string): ServiceError =>
  new ServiceError('unavailable', `No service answers ${subject}`);

export const requestTimedOut = (subject: string, timeoutMs: number): ServiceError =>
  new ServiceError('timeout', `No reply from ${subject} within ${timeoutMs} ms`);

export const busClosed = (): ServiceError => new ServiceError('unavailable', 'The bus is closed');

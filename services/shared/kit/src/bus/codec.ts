import { ServiceError } from '../errors.ts';

// How payloads travel: JSON text, serialised on send (so a handler never shares an object
// with its caller), as UTF-8 bytes on the wire.

const utf8Decoder = new TextDecoder();

/**
 * A value that is already JSON: as text, or as the UTF-8 bytes it came in. The kit's `serve`
 * serialises a result once to measure it (and moves a large one to the blob store); this
 * carries that text into the reply envelope instead of serialising the same value a second
 * time. A reply read with `callEncoded` from NATS keeps the message's bytes, which a caller
 * that passes them on (the gateway answering a browser) sends without decoding them.
 */
export class EncodedJson {
  #text: string | undefined;
  readonly #bytes: Uint8Array | undefined;

  constructor(json: string | Uint8Array) {
    if (typeof json === 'string') this.#text = json;
    else this.#bytes = json;
  }

  /** The JSON text (decoded from the bytes on first use). */
  get text(): string {
    this.#text ??= utf8Decoder.decode(this.#bytes);
    return this.#text;
  }

  /** Its length: bytes when it holds bytes, else UTF-16 units. */
  get size(): number {
    return this.#bytes ? this.#bytes.byteLength : this.#text!.length;
  }

  /** What to send on as it is: the bytes it came in (no copy), else the text. */
  get body(): string | Buffer {
    const b = this.#bytes;
    return b ? Buffer.from(b.buffer, b.byteOffset, b.byteLength) : this.#text!;
  }
}

const preEncoded = new WeakMap<object, string>();

/**
 * Tells the bus that `value` serialises to `text`, so that the next send of that very object
 * uses it instead of serialising it again (`call` serialises a request to measure it, and
 * still hands the bus the value itself, so that whatever wraps the bus sees the request).
 */
export function rememberEncoded(value: unknown, text: string): void {
  if (typeof value === 'object' && value !== null) preEncoded.set(value, text);
}

/** Drops what rememberEncoded kept when the send failed before using it (a later send re-serialises). */
export function forgetEncoded(value: unknown): void {
  if (typeof value === 'object' && value !== null) preEncoded.delete(value);
}

/**
 * JSON text of a payload, or undefined for `undefined` (an empty message). Serialising on
 * send is what guarantees that a handler never shares an object with its caller.
 */
export function encodePayload(payload: unknown, subject: string): string | undefined {
  if (typeof payload === 'object' && payload !== null) {
    if (payload instanceof EncodedJson) return payload.text;
    const text = preEncoded.get(payload);
    if (text !== undefined) {
      preEncoded.delete(payload);
      return text;
    }
  }
  try {
    return JSON.stringify(payload);
  } catch (err) {
    throw new ServiceError(
      'internal',
      `Payload for ${subject} is not JSON-serialisable: ${(err as Error).message}`,
    );
  }
}

export function decodePayload(text: string | undefined): unknown {
  return text === undefined || text.length === 0 ? undefined : JSON.parse(text);
}

const EMPTY_BYTES = new Uint8Array(0);

/** UTF-8 bytes of a message. Buffer.from: a slice of Node's pool, 2-3x cheaper than TextEncoder for small text. */
export function toBytes(text: string | undefined): Uint8Array {
  return text === undefined ? EMPTY_BYTES : Buffer.from(text, 'utf8');
}

export function fromBytes(data: Uint8Array): string | undefined {
  return data.length === 0 ? undefined : utf8Decoder.decode(data);
}

import type { BusEvent, BusEventPayload, Rpc, RpcRequest, RpcResponse } from '@chronicler/contracts';
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { EncodedJson, forgetEncoded, rememberEncoded } from '../bus/codec.ts';
import type {
  Bus,
  Consumer,
  ConsumerDefinition,
  DurableContext,
  MessageMeta,
  RequestOptions,
  Subscription,
} from '../bus/types.ts';
import { ServiceError } from '../errors.ts';
import { splitPage } from './encoded-parts.ts';

const checkers = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checker(schema: TSchema): TypeCheck<TSchema> {
  let c = checkers.get(schema);
  if (!c) {
    c = TypeCompiler.Compile(schema);
    checkers.set(schema, c);
  }
  return c;
}

/** Throws ServiceError('bad_request') naming the first offending field. */
export function assertValid<S extends TSchema>(
  schema: S,
  value: unknown,
  what = 'request',
): asserts value is Static<S> {
  const c = checker(schema);
  if (c.Check(value)) return;
  const first = c.Errors(value).First();
  const where = first?.path ? ` at ${first.path}` : '';
  throw new ServiceError('bad_request', `Invalid ${what}${where}: ${first?.message ?? 'does not match'}`);
}

/** Blob bucket of the requests and replies too large for one bus message. */
export const PAYLOAD_BUCKET = 'bus-payloads';
/**
 * Largest request or reply (bytes of JSON) always sent inside the message. A larger one is
 * sent inside too when it fits the bus's largest message less PAYLOAD_HEADROOM_BYTES (the
 * headers and the reply envelope): up to 960 KiB on nats-server's default max_payload of
 * 1 MiB, up to about 8 MB on the cluster's (k8s/base/nats.yaml). Only what is larger still
 * goes through PAYLOAD_BUCKET: a blob written and read back costs a 500,000-character
 * session several times the message (see the kit README).
 */
export const PAYLOAD_INLINE_BYTES = 256 * 1024;
/** Room left in a message for its headers (trace context, reply subject) and the reply envelope. */
export const PAYLOAD_HEADROOM_BYTES = 64 * 1024;
/**
 * Largest request or reply at all. The product's largest payload is a transcript of 500,000
 * characters (1.5 MB of UTF-8) or a page of a list; this only stops a runaway value from
 * being buffered whole in two processes.
 */
export const PAYLOAD_MAX_BYTES = 64 * 1024 * 1024;
/**
 * How long a payload blob may outlive its message. The receiver reads and deletes it within
 * the call's timeout; one is left behind only when the caller gave up (timeout) before the
 * reply blob was read, or the handler's process died before reading the request's. The NATS
 * object store drops them by its bucket TTL, the in-process store by a sweep.
 */
export const PAYLOAD_BLOB_MAX_AGE_MS = 60 * 60 * 1000;

/** The key of a message that stands for a payload in PAYLOAD_BUCKET: `{"$payload_blob": "<uuid>"}`. */
const REF_KEY = '$payload_blob';
const BLOB_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The blob's name when `payload` is a reference, else null. Only an object with this one key
 * and a uuid counts: every request carries an owner or other fields, and every reply is a
 * contract's shape, so no real payload looks like one.
 */
function referencedBlob(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return null;
  const keys = Object.keys(payload);
  if (keys.length !== 1 || keys[0] !== REF_KEY) return null;
  const name = (payload as Record<string, unknown>)[REF_KEY];
  return typeof name === 'string' && BLOB_NAME.test(name) ? name : null;
}

const bucketsReady = new WeakMap<Bus, Promise<void>>();

/** Gives the payload bucket its maximum age once per bus, before the first blob is written. */
function payloadBucket(bus: Bus): Promise<void> {
  let ready = bucketsReady.get(bus);
  if (!ready) {
    ready = bus.blobs.expireAfter(PAYLOAD_BUCKET, PAYLOAD_BLOB_MAX_AGE_MS);
    ready.catch(() => bucketsReady.delete(bus));
    bucketsReady.set(bus, ready);
  }
  return ready;
}

/**
 * What to send for `value`: its JSON text when small, else a reference to a blob holding it.
 * Serialised once here; the bus sends the same text.
 */
async function pack(bus: Bus, value: unknown, what: string): Promise<EncodedJson | PayloadRef | undefined> {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new ServiceError('internal', `${what} is not JSON-serialisable: ${(err as Error).message}`);
  }
  if (text === undefined) return undefined;
  const inline = Math.max(PAYLOAD_INLINE_BYTES, bus.maxPayloadBytes - PAYLOAD_HEADROOM_BYTES);
  // UTF-8 takes at most 3 bytes per UTF-16 unit: most payloads are known small without encoding them.
  if (text.length * 3 <= inline) return new EncodedJson(text);
  // Measured without encoding: the bus encodes the text it sends once, and only a blob needs the bytes here.
  const size = Buffer.byteLength(text, 'utf8');
  if (size <= inline) return new EncodedJson(text);
  if (size > PAYLOAD_MAX_BYTES) throw new ServiceError('payload_too_large', `${what} is too large`);
  await payloadBucket(bus);
  const name = randomUUID();
  const bytes = Buffer.from(text, 'utf8');
  await bus.blobs.put(PAYLOAD_BUCKET, name, Readable.from([bytes]), { contentType: 'application/json' });
  return { [REF_KEY]: name };
}

type PayloadRef = { [REF_KEY]: string };

/** The payload a message stands for: itself, or the blob it names (read, then deleted). */
async function unpack(bus: Bus, payload: unknown, what: string): Promise<unknown> {
  const name = referencedBlob(payload);
  if (name === null) return payload;
  const text = await readBlob(bus, name, what);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ServiceError('internal', `${what} in the blob store is not JSON`);
  }
}

/** The text of a payload blob, read once and deleted. */
async function readBlob(bus: Bus, name: string, what: string): Promise<string> {
  const stream = await bus.blobs.get(PAYLOAD_BUCKET, name);
  if (!stream) throw new ServiceError('internal', `${what} is missing from the blob store`);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > PAYLOAD_MAX_BYTES) throw new ServiceError('payload_too_large', `${what} is too large`);
      chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    }
  } finally {
    // Read once: the blob has no other reader, and a failed read will not be retried.
    await bus.blobs.delete(PAYLOAD_BUCKET, name).catch(() => false);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/**
 * Calls an Rpc over the bus; errors arrive as ServiceError (see Bus.request). A request or
 * reply of any size (up to PAYLOAD_MAX_BYTES) travels: one larger than the bus's largest
 * message less PAYLOAD_HEADROOM_BYTES (and than PAYLOAD_INLINE_BYTES) goes through the blob store, which the receiving side reads and empties here and in `serve`.
 */
export async function call<R extends Rpc>(
  bus: Bus,
  endpoint: R,
  request: RpcRequest<R>,
  opts?: RequestOptions,
): Promise<RpcResponse<R>> {
  const reply = await send(bus, endpoint, request, opts);
  return (await unpack(bus, reply, `Reply of ${endpoint.subject}`)) as RpcResponse<R>;
}

/**
 * Like `call`, but the reply comes as its JSON text, never parsed here: for a caller that
 * sends it on as JSON unchanged (the gateway answering a browser with a service's reply).
 * The text is what the handler's result serialised to, an RpcResponse<R>; a reply that went
 * through the blob store is read from it as text. Errors as `call`.
 */
export async function callEncoded<R extends Rpc>(
  bus: Bus,
  endpoint: R,
  request: RpcRequest<R>,
  opts?: RequestOptions,
): Promise<EncodedJson> {
  const what = `Reply of ${endpoint.subject}`;
  const reply = await send(bus, endpoint, request, { ...opts, encoded: true });
  // A bus that parsed the reply anyway (one that does not know `encoded`) gives the value.
  const json =
    reply instanceof EncodedJson
      ? reply
      : reply === undefined
        ? undefined
        : new EncodedJson(JSON.stringify(reply));
  if (json === undefined) throw new ServiceError('internal', `${what} is empty`);
  // Only a reference is this short and begins so: a real reply is a contract's shape.
  if (json.size < 80 && json.text.startsWith(`{"${REF_KEY}"`)) {
    const name = referencedBlob(JSON.parse(json.text));
    if (name !== null) return new EncodedJson(await readBlob(bus, name, what));
  }
  return json;
}

/**
 * Like `callEncoded`, for an Rpc whose reply is a page (`pageOf`): its cursor, and its items as
 * the JSON text of their array, never parsed here (the gateway answers a list with it; see
 * `splitPage`). Any other reply (keys in another order, a cursor of other characters) is
 * parsed and its items serialised again.
 */
export async function callEncodedPage<R extends Rpc>(
  bus: Bus,
  endpoint: R,
  request: RpcRequest<R>,
  opts?: RequestOptions,
): Promise<{ items: EncodedJson; next: string | null }> {
  return splitPage(await callEncoded(bus, endpoint, request, opts), `Reply of ${endpoint.subject}`);
}

/** Sends a request (through the blob store when large); the reply as the bus gives it. */
async function send<R extends Rpc>(
  bus: Bus,
  endpoint: R,
  request: RpcRequest<R>,
  opts?: RequestOptions,
): Promise<unknown> {
  const packed = await pack(bus, request, `Request of ${endpoint.subject}`);
  // A small request goes to the bus as the value itself (Bus payloads are JSON values), so
  // that what wraps or observes bus.request sees the request, not its text.
  // The bus sends the text measured here rather than serialising the request again.
  if (packed instanceof EncodedJson) rememberEncoded(request, packed.text);
  const payload = packed instanceof EncodedJson ? request : packed;
  let reply: unknown;
  try {
    reply = await bus.request(endpoint.subject, payload, opts);
  } catch (err) {
    // A request refused before it was encoded (bus closed) must not leave its text behind
    // for a later send of the same object, which may have changed since.
    forgetEncoded(request);
    // Nobody took the request (no responder, bus closed): its blob has no reader to come.
    const blob = referencedBlob(payload);
    if (blob !== null && ServiceError.is(err) && err.code === 'unavailable') {
      await bus.blobs.delete(PAYLOAD_BUCKET, blob).catch(() => false);
    }
    throw err;
  }
  return reply;
}

/**
 * Serves an Rpc in the service's queue group (replicas share the load). The request is
 * validated with the Rpc's schema before the handler sees it: type hints are not validation.
 * Requests and replies of any size travel as `call` describes.
 */
export function serve<R extends Rpc>(
  bus: Bus,
  endpoint: R,
  handler: (request: RpcRequest<R>, meta: MessageMeta) => Promise<RpcResponse<R>> | RpcResponse<R>,
): Subscription {
  return bus.handle(
    endpoint.subject,
    async (message, meta) => {
      const payload = await unpack(bus, message, `Request of ${endpoint.subject}`);
      assertValid(endpoint.request, payload);
      const result = await handler(payload as RpcRequest<R>, meta);
      return pack(bus, result, `Reply of ${endpoint.subject}`);
    },
    { queue: endpoint.service },
  );
}

/**
 * Starts a durable consumer of one event (see Bus.consume). The payload is validated with the
 * event's schema before the handler sees it, as `serve` does for requests; one that does not
 * match fails the delivery, so it is retried and then dead-lettered rather than acted on.
 */
export function consume<E extends BusEvent>(
  bus: Bus,
  def: ConsumerDefinition,
  event: E,
  handler: (payload: BusEventPayload<E>, ctx: DurableContext) => Promise<void>,
): Promise<Consumer> {
  return bus.consume({ filterSubject: event.subject, ...def }, async (payload, ctx) => {
    assertValid(event.payload, payload, `payload of ${event.subject}`);
    await handler(payload as BusEventPayload<E>, ctx);
  });
}

/**
 * Subscribes to one event (see Bus.subscribe; `event.subject` may hold wildcards). The payload
 * is validated with the event's schema before the handler sees it; one that does not match is
 * logged as a failed event and dropped, since a fire-and-forget event is never redelivered.
 */
export function listen<E extends BusEvent>(
  bus: Bus,
  event: E,
  handler: (payload: BusEventPayload<E>, meta: MessageMeta) => void | Promise<void>,
  opts?: { queue?: string },
): Subscription {
  return bus.subscribe(
    event.subject,
    (payload, meta) => {
      assertValid(event.payload, payload, `payload of ${meta.subject}`);
      return handler(payload as BusEventPayload<E>, meta);
    },
    opts,
  );
}

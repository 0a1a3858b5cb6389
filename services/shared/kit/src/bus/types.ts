import type { Readable } from 'node:stream';

/**
 * One message bus, two implementations with the same semantics: NATS (+ JetStream) for
 * the cluster, and an in-process bus for the embedded mode. Payloads are JSON values.
 *
 * Subjects are dot-separated tokens. Subscriptions may use `*` (exactly one token) and
 * `>` (one or more trailing tokens). Every implementation prefixes subjects and stream
 * names with its namespace (`BUS_PREFIX`), so that several deployments or test runs can
 * share one NATS server without seeing each other's messages; callers never see the prefix.
 */
export interface Bus {
  readonly kind: 'nats' | 'memory';

  /**
   * Sends a request and waits for one reply. A handler that throws a ServiceError makes this
   * reject with a ServiceError of the same code and message; any other thrown error becomes
   * `internal`. No responder: ServiceError('unavailable', 'No service answers <subject>').
   * No reply within timeoutMs (default 5000): ServiceError('timeout', ...).
   */
  request<Res = unknown>(subject: string, payload: unknown, opts?: RequestOptions): Promise<Res>;

  /**
   * Answers requests on `subject` (no wildcards needed for services, but allowed). Replicas
   * that pass the same `queue` share the load: each request is answered by one of them.
   */
  handle(subject: string, handler: RequestHandler, opts?: { queue?: string }): Subscription;

  /** Fire-and-forget publish (core NATS): only current subscribers see it. */
  publish(subject: string, payload: unknown, opts?: { headers?: Headers }): Promise<void>;

  /** Subscribes with wildcards; with `queue`, one member of the group gets each message. */
  subscribe(subject: string, handler: EventHandler, opts?: { queue?: string }): Subscription;

  /** Creates the stream or updates its subjects; idempotent. */
  ensureStream(def: StreamDefinition): Promise<void>;

  /**
   * Persists a message to the stream that owns `subject`. With `msgId`, a second publish of
   * the same id inside the stream's duplicate window is dropped and reported as `duplicate`.
   */
  publishDurable(subject: string, payload: unknown, opts?: DurablePublishOptions): Promise<PublishAck>;

  /**
   * Starts a durable consumer. Deliveries continue where the durable left off after a
   * restart. The handler's promise decides the outcome: resolve = ack; reject = nak with a
   * backoff delay and redelivery. A message that is not acked within ackWaitMs is
   * redelivered. After `maxDeliver` failed deliveries, the message is published to
   * `deadLetterSubject` (default `dlq.<stream>.<durable>`) as a DeadLetter and acked. At most
   * `concurrency` handlers run at once.
   */
  consume(def: ConsumerDefinition, handler: DurableHandler): Promise<Consumer>;

  /** Large objects, written and read as streams of chunks. */
  readonly blobs: BlobStore;

  /**
   * The largest message the transport carries, in bytes (NATS: the server's max_payload;
   * the in-process bus refuses above the same default). Headers and envelope count too.
   */
  readonly maxPayloadBytes: number;

  /** Connection status changes (NATS: disconnect/reconnect); memory bus emits nothing. */
  onStatus(listener: (status: BusStatus) => void): () => void;

  /** True while connected (memory bus: until closed). */
  isConnected(): boolean;

  /** Stops subscriptions and consumers, lets in-flight handlers finish, then closes. */
  close(): Promise<void>;
}

export type Headers = Record<string, string>;

export interface RequestOptions {
  timeoutMs?: number;
  headers?: Headers;
  /**
   * The reply's result as its JSON text (an EncodedJson; undefined for none), not parsed: for
   * a caller that passes it on as JSON. Errors arrive as ServiceErrors all the same.
   */
  encoded?: boolean;
}

export interface MessageMeta {
  subject: string;
  headers: Headers;
}

export type RequestHandler = (payload: unknown, meta: MessageMeta) => unknown | Promise<unknown>;
export type EventHandler = (payload: unknown, meta: MessageMeta) => void | Promise<void>;

export interface Subscription {
  unsubscribe(): Promise<void>;
}

export interface StreamDefinition {
  name: string;
  subjects: string[];
  /** Messages older than this are discarded. Default: keep forever. */
  maxAgeMs?: number;
  /** Window for msgId de-duplication. Default 2 minutes. */
  duplicateWindowMs?: number;
}

export interface DurablePublishOptions {
  msgId?: string;
  headers?: Headers;
}

export interface PublishAck {
  stream: string;
  seq: number;
  duplicate: boolean;
}

export interface ConsumerDefinition {
  stream: string;
  durable: string;
  /** Only messages on this subject (wildcards allowed). Default: all of the stream. */
  filterSubject?: string;
  /** Default 30000. */
  ackWaitMs?: number;
  /** Default 5. */
  maxDeliver?: number;
  /** Default 1. */
  concurrency?: number;
  /**
   * Default true: a handled message is acked and the server's confirmation awaited, so that
   * "handler done" means "will not come back"; the message holds its slot until then (a round
   * trip to NATS). false: the ack is sent and the slot freed at once; a lost ack means one more
   * delivery after ackWaitMs, for handlers whose work may simply be done again.
   */
  confirmAck?: boolean;
  /** Default `dlq.<stream>.<durable>`. */
  deadLetterSubject?: string;
  /** First redelivery delay after a failure; doubles each time, capped at maxBackoffMs. Default 1000. */
  backoffMs?: number;
  /**
   * The longest redelivery delay. Default 30000. A consumer whose failures mean "not yet"
   * (waiting for an earlier message) keeps it short, so the wait ends soon after the cause.
   */
  maxBackoffMs?: number;
}

export interface DurableContext extends MessageMeta {
  stream: string;
  seq: number;
  /** 1 on the first delivery. */
  deliveryCount: number;
  msgId?: string;
  /** Extends the ack deadline for long work. */
  working(): void;
}

export type DurableHandler = (payload: unknown, ctx: DurableContext) => Promise<void>;

export interface Consumer {
  stop(): Promise<void>;
}

/** What a dead-lettered message looks like on the dead-letter subject. */
export interface DeadLetter {
  stream: string;
  durable: string;
  subject: string;
  seq: number;
  msgId?: string;
  deliveries: number;
  error: string;
  payload: unknown;
}

export interface BlobInfo {
  bucket: string;
  name: string;
  size: number;
  /** `SHA-256=<base64url>` of the content. */
  digest: string;
  contentType?: string;
  createdAt: string;
}

/** Bytes `start..end` of an object, both inclusive (as in an HTTP Range). */
export interface BlobRange {
  start: number;
  end: number;
}

export interface BlobStore {
  /** Streams `source` into `bucket/name`; never holds the whole object in memory. */
  put(
    bucket: string,
    name: string,
    source: Readable | AsyncIterable<Uint8Array>,
    opts?: { contentType?: string },
  ): Promise<BlobInfo>;
  /**
   * A readable stream of the content, or null when there is no such object. With `range`,
   * bytes `start..end` (inclusive, `end` clamped to the size) and nothing else is read: the
   * file store seeks, the object store starts at the chunk holding `start`. A whole read is
   * checked against the object's digest; a ranged one against the length it should have.
   */
  get(bucket: string, name: string, range?: BlobRange): Promise<Readable | null>;
  info(bucket: string, name: string): Promise<BlobInfo | null>;
  delete(bucket: string, name: string): Promise<boolean>;
  /**
   * Bounds what a bucket can keep: objects older than `maxAgeMs` may go at any time (the
   * NATS object store's bucket TTL; the in-process store sweeps now and then). Creates the
   * bucket when missing; idempotent. For buckets of short-lived objects whose reader may
   * never come (a caller that timed out, a handler that crashed).
   */
  expireAfter(bucket: string, maxAgeMs: number): Promise<void>;
  /**
   * Removes what puts that never finished left behind (a process killed in the middle of an
   * upload): data of no object that nothing has written to for `idleMs`. A put in progress
   * in any process keeps writing, so it is never taken. The number of leftovers removed.
   */
  removeAbandoned(bucket: string, idleMs: number): Promise<number>;
}

export type BusStatus = 'connected' | 'disconnected' | 'reconnecting' | 'reconnected' | 'closed';

import { ServiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { busDeliveries, busRedeliveries } from '../ops/metrics.ts';
import { DEFAULT_DUPLICATE_WINDOW_MS, resolveConsumer, type ResolvedConsumer } from './durable.ts';
import { BusInstruments, type ReplyCheck } from './instruments.ts';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  EncodedReply,
  busClosed,
  unwrapEncodedReply,
  unwrapReply,
  type Reply,
} from './reply.ts';
import { BusNamespace } from './subject.ts';
import { copyHeaders } from './trace.ts';
import type {
  BlobStore,
  Bus,
  BusStatus,
  Consumer,
  ConsumerDefinition,
  DurableHandler,
  DurablePublishOptions,
  EventHandler,
  Headers,
  MessageMeta,
  PublishAck,
  RequestHandler,
  RequestOptions,
  StreamDefinition,
  Subscription,
} from './types.ts';
import { InFlight, sent, silentLogger } from './util.ts';

/** A stream as the bus applies it: names and subjects with the prefix, defaults resolved. */
export interface StreamConfigRecord {
  name: string;
  subjects: string[];
  /** Absent: keep forever. */
  maxAgeMs?: number;
  duplicateWindowMs: number;
}

/**
 * The Bus contract, written once for both buses: argument checks, the prefix, payload
 * encoding, the reply envelope, tracing and metrics, subscriptions and the order of close().
 * A bus supplies its transport alone: `M` is a received message, `E` an encoded payload.
 */
export abstract class BaseBus<M, E> implements Bus {
  abstract readonly kind: Bus['kind'];
  abstract readonly blobs: BlobStore;
  abstract readonly maxPayloadBytes: number;
  readonly ns: BusNamespace;
  readonly log: Logger;
  readonly instruments: BusInstruments;
  protected closing: Promise<void> | null = null;
  private closed = false;
  private readonly subs = new Set<Subscription>();
  private readonly consumers = new Set<Consumer>();
  /** Refuses a reply the transport cannot carry (it is answered with that error instead). */
  protected readonly checkReply?: ReplyCheck;

  constructor(opts: { prefix: string; logger?: Logger; tracing?: boolean }, system: string, fields: object) {
    this.ns = new BusNamespace(opts.prefix);
    this.log = (opts.logger ?? silentLogger).child(fields);
    this.instruments = new BusInstruments(system, this.log, opts.tracing);
  }

  /** Subscribes the transport to a full pattern; the function it returns ends the subscription. */
  protected abstract listen(
    full: string,
    queue: string | undefined,
    onMessage: (m: M) => void,
  ): () => Promise<void>;
  /** The unprefixed subject and the caller's headers of a received message. */
  protected abstract metaOf(m: M): MessageMeta;
  /** The payload of a received message (a property: receiving creates no closure). */
  protected abstract readonly decode: (m: M) => unknown;
  /** Sends a request's reply; never throws. */
  protected abstract respond(m: M, subject: string, reply: Reply): void;
  protected abstract encode(payload: unknown, subject: string): E;
  protected abstract send(full: string, data: E, headers: Headers | undefined): void;
  /** The reply text to a request, or a ServiceError (unavailable, timeout, closed). */
  protected abstract sendRequest(
    full: string,
    data: E,
    headers: Headers | undefined,
    timeoutMs: number,
    subject: string,
    /** The reply's bytes as they came, where the transport has bytes (for `encoded`). */
    asBytes: boolean,
  ): Promise<string | Uint8Array | undefined>;
  protected abstract applyStream(def: StreamDefinition, config: StreamConfigRecord): Promise<void>;
  protected abstract store(
    full: string,
    data: E,
    headers: Headers | undefined,
    msgId: string | undefined,
    subject: string,
  ): Promise<PublishAck>;
  protected abstract startConsumer(cfg: ResolvedConsumer, handler: DurableHandler): Promise<Consumer>;
  /** After close() stopped consumers and subscriptions: let go of the transport. */
  protected abstract shutdown(): Promise<void>;
  abstract onStatus(listener: (status: BusStatus) => void): () => void;
  abstract isConnected(): boolean;

  /** Errors of the transport as the ServiceErrors callers are promised. */
  protected transportError(err: unknown, _what: string): unknown {
    return err;
  }

  /** Whether the transport is gone underneath the bus (a closed connection). */
  protected transportClosed(): boolean {
    return false;
  }

  /**
   * Sending (request, publish, blobs) works until close() has let the handlers in flight
   * finish, so that their last replies and follow-up messages still go out.
   */
  protected assertOpen(): void {
    if (this.closed || this.transportClosed()) throw busClosed();
  }

  /** New subscriptions, streams and consumers are refused as soon as close() starts. */
  protected assertAccepting(): void {
    if (this.closing || this.transportClosed()) throw busClosed();
  }

  request<Res = unknown>(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<Res> {
    return this.instruments.request(subject, opts.headers, (headers) => {
      this.assertOpen();
      const full = this.ns.subject(subject);
      const timeoutMs = opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const data = this.encode(payload, subject);
      const encoded = opts.encoded === true;
      return this.sendRequest(full, data, headers, timeoutMs, subject, encoded).then((reply) =>
        encoded
          ? (unwrapEncodedReply(reply, subject) as Res)
          : unwrapReply<Res>(reply as string | undefined, subject),
      );
    });
  }

  handle(subject: string, handler: RequestHandler, opts: { queue?: string } = {}): Subscription {
    return this.addSubscription(subject, opts.queue, (m, inFlight) => {
      const meta = this.metaOf(m);
      const reply = this.instruments.answer(subject, meta, handler, m, this.decode, this.checkReply);
      if (typeof reply === 'string' || reply instanceof EncodedReply) {
        this.respond(m, meta.subject, reply);
        return;
      }
      inFlight.begin();
      void reply.then((text) => {
        this.respond(m, meta.subject, text);
        inFlight.end();
      });
    });
  }

  subscribe(subject: string, handler: EventHandler, opts: { queue?: string } = {}): Subscription {
    return this.addSubscription(subject, opts.queue, (m, inFlight) =>
      this.instruments.deliver(subject, this.metaOf(m), handler, m, this.decode, inFlight),
    );
  }

  private addSubscription(
    subject: string,
    queue: string | undefined,
    run: (m: M, inFlight: InFlight) => void,
  ): Subscription {
    this.assertAccepting();
    const full = this.ns.subject(subject, { wildcards: true });
    const inFlight = new InFlight();
    const stop = this.listen(full, queue, (m) => run(m, inFlight));
    const sub: Subscription = {
      unsubscribe: async () => {
        this.subs.delete(sub);
        await stop();
        await inFlight.idle();
      },
    };
    this.subs.add(sub);
    return sub;
  }

  publish(subject: string, payload: unknown, opts?: { headers?: Headers }): Promise<void> {
    try {
      this.assertOpen();
      const full = this.ns.subject(subject);
      const data = this.encode(payload, subject);
      const headers = opts?.headers;
      if (this.instruments.tracing) {
        this.instruments.publishTraced(subject, headers, (h) => this.send(full, data, h));
      } else {
        this.send(full, data, headers === undefined ? undefined : copyHeaders(headers));
        this.instruments.published();
      }
      return sent();
    } catch (err) {
      return sent(this.transportError(err, subject));
    }
  }

  async ensureStream(def: StreamDefinition): Promise<void> {
    this.assertAccepting();
    if (!Array.isArray(def.subjects) || def.subjects.length === 0) {
      throw new ServiceError('internal', `Stream ${def.name} needs at least one subject`);
    }
    const maxAgeMs = def.maxAgeMs && def.maxAgeMs > 0 ? def.maxAgeMs : undefined;
    const window = def.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
    await this.applyStream(def, {
      name: this.ns.stream(def.name),
      subjects: def.subjects.map((s) => this.ns.subject(s, { wildcards: true })),
      ...(maxAgeMs ? { maxAgeMs } : {}),
      // JetStream refuses a duplicate window longer than the stream's max age.
      duplicateWindowMs: maxAgeMs ? Math.min(window, maxAgeMs) : window,
    });
  }

  async publishDurable(
    subject: string,
    payload: unknown,
    opts: DurablePublishOptions = {},
  ): Promise<PublishAck> {
    this.assertOpen();
    const full = this.ns.subject(subject);
    if (opts.msgId !== undefined && (typeof opts.msgId !== 'string' || opts.msgId.length === 0)) {
      throw new ServiceError('internal', 'msgId must be a non-empty string');
    }
    const data = this.encode(payload, subject);
    const ack = await this.instruments.publishDurable(subject, opts.headers, (headers) =>
      this.store(full, data, headers, opts.msgId, subject),
    );
    return { stream: this.ns.streamName(ack.stream), seq: ack.seq, duplicate: ack.duplicate };
  }

  async consume(def: ConsumerDefinition, handler: DurableHandler): Promise<Consumer> {
    this.assertAccepting();
    const cfg = resolveConsumer(def);
    const consumer = await this.startConsumer(cfg, handler);
    if (this.closing) {
      // close() began while the consumer was being created and did not see it
      await consumer.stop();
      throw busClosed();
    }
    // Zero until something happens: "none" reads as 0 rather than as no data.
    const labels = { stream: cfg.stream, durable: cfg.durable };
    busRedeliveries.inc(labels, 0);
    busDeliveries.inc({ ...labels, outcome: 'dead_letter' }, 0);
    this.consumers.add(consumer);
    return {
      stop: () => {
        this.consumers.delete(consumer);
        return consumer.stop();
      },
    };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.consumers].map((c) => c.stop()));
      await Promise.all([...this.subs].map((s) => s.unsubscribe()));
      this.closed = true;
      await this.shutdown();
    })();
    return this.closing;
  }
}

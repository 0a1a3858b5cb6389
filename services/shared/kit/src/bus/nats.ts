import {
  DebugEvents,
  DiscardPolicy,
  ErrorCode,
  Events,
  RetentionPolicy,
  StorageType,
  connect,
  nanos,
  type JetStreamClient,
  type JetStreamManager,
  type Msg,
  type NatsConnection,
  type StreamInfo,
} from 'nats';
import { ServiceError } from '../errors.ts';
import { redactUrl, type Logger } from '../logger.ts';
import { busMessagesPublished } from '../ops/metrics.ts';
import { BaseBus, type StreamConfigRecord } from './base.ts';
import { decodePayload, encodePayload, fromBytes, toBytes } from './codec.ts';
import type { ResolvedConsumer } from './durable.ts';
import { NatsBlobStore } from './nats-blobs.ts';
import { NatsDurableConsumer } from './nats-consumer.ts';
import { Outbox } from './nats-outbox.ts';
import { ReplyMux, RequestFailed } from './nats-replies.ts';
import {
  DRAIN_TIMEOUT_MS,
  JS_ERR_STREAM_SUBJECT_OVERLAP,
  JS_TIMEOUT_MS,
  apiErrCode,
  fromNatsHeaders,
  isAlreadyInUse,
  isStreamNotFound,
  natsCode,
  toNatsHeaders,
  transportError,
} from './nats-wire.ts';
import { busClosed, errorReplyFor, noResponders, requestTimedOut, type Reply } from './reply.ts';
import type {
  BlobStore,
  BusStatus,
  Consumer,
  DurableHandler,
  Headers,
  MessageMeta,
  PublishAck,
  StreamDefinition,
} from './types.ts';
import { errorMessage } from './util.ts';

export interface NatsBusOptions {
  /** One server URL or several, comma-separated. */
  url: string;
  /** Namespace of subjects, streams, durables and buckets (BUS_PREFIX). */
  prefix: string;
  /** Connection name (the service), shown by the server's monitoring. */
  name: string;
  logger?: Logger;
  /** Pause between reconnect attempts. Default 500 ms: services come back soon after a server restart. */
  reconnectTimeWaitMs?: number;
  /** Replicas of streams and buckets created here (the platform passes NATS_STREAM_REPLICAS). Default 1. */
  streamReplicas?: number;
  /** Spans and trace headers per message. Default: whether startTelemetry registered a tracer. */
  tracing?: boolean;
}

/** The payload of a message's bytes (module-level, so receiving a message creates no closure). */
const decodeMessage = (m: Msg): unknown => decodePayload(fromBytes(m.data));

/** The cluster bus: core NATS for request/reply and events, JetStream for streams and blobs. */
export class NatsBus extends BaseBus<Msg, Uint8Array> {
  readonly kind = 'nats' as const;
  readonly blobs: BlobStore;
  readonly js: JetStreamClient;
  readonly replicas: number;
  protected readonly decode = decodeMessage;
  private jsmPromise: Promise<JetStreamManager> | null = null;
  private readonly replies: ReplyMux;
  /** Requests and replies, sent together once per event-loop turn (see Outbox). */
  private readonly outbox = new Outbox();
  private connected = true;
  private readonly listeners = new Set<(s: BusStatus) => void>();
  /** Streams ensured through this bus, by caller's name, to recreate one a server lost. */
  private readonly streamDefs = new Map<string, [StreamDefinition, StreamConfigRecord]>();

  /**
   * Connects (failing fast if no server answers now) and then keeps reconnecting forever,
   * so a service rides out nats-server restarts without being restarted itself.
   */
  static async connect(opts: NatsBusOptions): Promise<NatsBus> {
    const servers = opts.url
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    try {
      const nc = await connect({
        servers,
        name: opts.name,
        maxReconnectAttempts: -1,
        reconnectTimeWait: opts.reconnectTimeWaitMs ?? 500,
        reconnectJitter: 100,
        // A dead peer that never closes the socket is noticed after ~30 s instead of the default 4 min.
        pingInterval: 10_000,
        maxPingOut: 3,
        // Otherwise every request captures an Error for its stack: ~9% of a gateway's CPU.
        noAsyncTraces: true,
      });
      return new NatsBus(nc, opts);
    } catch (err) {
      throw new Error(`Cannot connect to NATS at ${redactUrl(opts.url)}: ${redactUrl(errorMessage(err))}`, {
        cause: err,
      });
    }
  }

  private constructor(
    readonly nc: NatsConnection,
    opts: NatsBusOptions,
  ) {
    super(opts, 'nats', { bus: 'nats', client: opts.name });
    this.replicas = opts.streamReplicas ?? 1;
    this.js = nc.jetstream({ timeout: JS_TIMEOUT_MS });
    this.blobs = new NatsBlobStore(this, () => this.assertOpen());
    this.replies = new ReplyMux(nc, this.outbox);
    this.watchStatus().catch((err: unknown) => this.log.error({ err }, 'NATS status watcher stopped'));
    void nc.closed().then((err) => {
      this.connected = false;
      if (err) this.log.error({ err }, 'NATS connection closed with an error');
      this.emit('closed');
    });
  }

  private async watchStatus(): Promise<void> {
    let reconnecting = false;
    for await (const s of this.nc.status()) {
      switch (s.type) {
        case Events.Disconnect:
          this.connected = false;
          reconnecting = false;
          this.log.warn({ server: s.data }, 'NATS disconnected');
          this.emit('disconnected');
          break;
        case DebugEvents.Reconnecting:
          // reported once per outage, not once per attempt
          if (!reconnecting) {
            reconnecting = true;
            this.emit('reconnecting');
          }
          break;
        case Events.Reconnect:
          this.connected = true;
          reconnecting = false;
          this.log.info({ server: s.data }, 'NATS reconnected');
          this.emit('reconnected');
          break;
        case Events.Error:
        case Events.LDM:
          this.log.warn({ status: s.type, data: s.data }, 'NATS server notice');
          break;
        default:
          break;
      }
    }
  }

  private emit(status: BusStatus): void {
    for (const l of this.listeners) {
      try {
        l(status);
      } catch (err) {
        this.log.error({ err }, 'bus status listener failed');
      }
    }
  }

  protected override transportClosed(): boolean {
    return this.nc.isClosed();
  }

  protected override transportError(err: unknown, what: string): unknown {
    return transportError(err, what);
  }

  /** The server's max_payload (nats-server's default 1 MiB until the connection has its INFO). */
  get maxPayloadBytes(): number {
    return this.nc.info?.max_payload ?? 1024 * 1024;
  }

  /** Created on first use, so a bus whose server has no JetStream still does request/reply. */
  jsm(): Promise<JetStreamManager> {
    this.jsmPromise ??= this.nc.jetstreamManager({ timeout: JS_TIMEOUT_MS }).catch((err: unknown) => {
      this.jsmPromise = null;
      throw transportError(err, 'JetStream');
    });
    return this.jsmPromise;
  }

  protected encode(payload: unknown, subject: string): Uint8Array {
    return toBytes(encodePayload(payload, subject));
  }

  protected sendRequest(
    full: string,
    data: Uint8Array,
    headers: Headers | undefined,
    timeoutMs: number,
    subject: string,
    asBytes: boolean,
  ): Promise<string | Uint8Array | undefined> {
    return this.replies.request(full, data, timeoutMs, toNatsHeaders(headers)).then(
      // nats.js gives each message bytes of its own (a view of what the socket read): kept as they are.
      (reply) => (asBytes ? reply.data : fromBytes(reply.data)),
      (err: unknown) => {
        if (err instanceof RequestFailed) {
          if (err.reason === 'no-responders') throw noResponders(subject);
          if (err.reason === 'timeout') throw requestTimedOut(subject, timeoutMs);
          throw busClosed();
        }
        throw transportError(err, subject);
      },
    );
  }

  protected metaOf(m: Msg): MessageMeta {
    return { subject: this.ns.strip(m.subject), headers: fromNatsHeaders(m.headers) };
  }

  protected listen(full: string, queue: string | undefined, onMessage: (m: Msg) => void) {
    const sub = this.nc.subscribe(full, {
      ...(queue !== undefined ? { queue } : {}),
      callback: (err, msg) => {
        if (err) this.log.error({ err, subject: full }, 'subscription error');
        else onMessage(msg);
      },
    });
    return async () => {
      if (sub.isClosed()) return;
      // Drain lets requests already routed to this member be answered; bounded, because
      // during an outage the server cannot confirm it.
      const timer = new Promise((r) => setTimeout(r, DRAIN_TIMEOUT_MS).unref());
      await Promise.race([sub.drain().catch(() => {}), timer]);
      if (!sub.isClosed()) sub.unsubscribe();
    };
  }

  /** Sends a reply with this turn's batch; published messages (no reply subject) need none. Never throws. */
  protected respond(m: Msg, subject: string, reply: Reply): void {
    if (!m.reply) return;
    this.outbox.send(() => {
      try {
        m.respond(typeof reply === 'string' ? toBytes(reply) : reply.toBytes());
      } catch (err) {
        if (natsCode(err) !== ErrorCode.MaxPayloadExceeded) {
          this.log.warn({ err, subject }, 'could not send a reply');
          return;
        }
        const tooLarge = new ServiceError('payload_too_large', `Reply of ${subject} is too large`);
        try {
          m.respond(toBytes(errorReplyFor(tooLarge, subject, this.log)));
        } catch (e) {
          this.log.warn({ err: e, subject }, 'could not send a reply');
        }
      }
    });
  }

  protected send(full: string, data: Uint8Array, headers: Headers | undefined): void {
    this.nc.publish(full, data, headers === undefined ? undefined : { headers: toNatsHeaders(headers) });
  }

  protected async applyStream(def: StreamDefinition, config: StreamConfigRecord): Promise<void> {
    const jsm = await this.jsm();
    const { name, subjects } = config;
    const duplicateWindow = nanos(config.duplicateWindowMs);
    const maxAge = nanos(config.maxAgeMs ?? 0);
    try {
      let info: StreamInfo | null = null;
      try {
        info = await jsm.streams.info(name);
      } catch (err) {
        if (!isStreamNotFound(err)) throw err;
      }
      if (!info) {
        try {
          await jsm.streams.add({
            name,
            subjects,
            storage: StorageType.File,
            retention: RetentionPolicy.Limits,
            discard: DiscardPolicy.Old,
            max_age: maxAge,
            duplicate_window: duplicateWindow,
            num_replicas: this.replicas,
          });
          this.streamDefs.set(def.name, [def, config]);
          return;
        } catch (err) {
          // another replica of the service created it a moment ago
          if (!isAlreadyInUse(err)) throw err;
          info = await jsm.streams.info(name);
        }
      }
      const cfg = info.config;
      const same =
        cfg.subjects.length === subjects.length &&
        subjects.every((s) => cfg.subjects.includes(s)) &&
        cfg.max_age === maxAge &&
        cfg.duplicate_window === duplicateWindow;
      if (!same) {
        await jsm.streams.update(name, {
          ...cfg,
          subjects,
          max_age: maxAge,
          duplicate_window: duplicateWindow,
        });
        this.log.info({ stream: name, subjects }, 'stream updated');
      }
      this.streamDefs.set(def.name, [def, config]);
    } catch (err) {
      if (apiErrCode(err) === JS_ERR_STREAM_SUBJECT_OVERLAP) {
        throw new ServiceError('conflict', `Subjects of stream ${def.name} overlap with another stream`);
      }
      throw transportError(err, `stream ${def.name}`);
    }
  }

  /** Re-applies a stream definition this bus ensured before (after a server lost its state). */
  async reapplyStream(name: string): Promise<boolean> {
    const known = this.streamDefs.get(name);
    if (!known) return false;
    await this.applyStream(...known);
    return true;
  }

  protected async store(
    full: string,
    data: Uint8Array,
    headers: Headers | undefined,
    msgId: string | undefined,
    subject: string,
  ): Promise<PublishAck> {
    try {
      const pa = await this.js.publish(full, data, {
        ...(msgId !== undefined ? { msgID: msgId } : {}),
        headers: toNatsHeaders(headers),
        timeout: JS_TIMEOUT_MS,
      });
      return { stream: pa.stream, seq: pa.seq, duplicate: pa.duplicate };
    } catch (err) {
      if (natsCode(err) === ErrorCode.NoResponders)
        throw new ServiceError('unavailable', `No stream captures ${subject}`);
      if (natsCode(err) === ErrorCode.Timeout) {
        const message = `JetStream did not confirm a message on ${subject} within ${JS_TIMEOUT_MS} ms`;
        throw new ServiceError('timeout', message);
      }
      throw transportError(err, subject);
    }
  }

  /** A dead letter is durable when a stream captures its subject, else a plain publish. */
  async publishDeadLetter(fullSubject: string, text: string, headers: Headers, msgId: string): Promise<void> {
    const jsm = await this.jsm();
    let durable = true;
    try {
      await jsm.streams.find(fullSubject);
    } catch (err) {
      if (!/no stream matches/i.test(errorMessage(err))) throw err;
      durable = false;
    }
    const h = toNatsHeaders(headers);
    if (durable)
      await this.js.publish(fullSubject, toBytes(text), { msgID: msgId, headers: h, timeout: JS_TIMEOUT_MS });
    else this.nc.publish(fullSubject, toBytes(text), { headers: h });
    busMessagesPublished.inc({ kind: durable ? 'durable' : 'core' });
  }

  protected async startConsumer(cfg: ResolvedConsumer, handler: DurableHandler): Promise<Consumer> {
    const consumer = new NatsDurableConsumer(this, cfg, handler);
    await consumer.start();
    return consumer;
  }

  onStatus(listener: (status: BusStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  isConnected(): boolean {
    return this.connected && !this.nc.isClosed() && this.closing === null;
  }

  protected async shutdown(): Promise<void> {
    // The replies of the last handlers, and requests still to go, before the drain refuses them.
    this.outbox.flush();
    if (this.nc.isClosed()) return;
    // drain flushes what is still buffered; bounded, since it needs the server to answer
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), DRAIN_TIMEOUT_MS).unref());
    const drain = this.nc.drain().then(
      () => 'drained' as const,
      (err: unknown) => ({ err }),
    );
    const outcome = await Promise.race([drain, timer]);
    if (outcome !== 'drained') {
      this.log.warn(outcome === 'timeout' ? {} : outcome, 'NATS drain did not finish; closing');
    }
    if (!this.nc.isClosed()) await this.nc.close();
  }
}

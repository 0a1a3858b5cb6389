import {
  AckPolicy,
  DebugEvents,
  DeliverPolicy,
  DiscardPolicy,
  ErrorCode,
  Events,
  RetentionPolicy,
  StorageType,
  connect,
  headers as natsHeaders,
  nanos,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type Consumer as JsConsumer,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type StreamInfo,
} from 'nats';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { busDeliveries, busMessagesPublished, busRedeliveries } from '../ops/metrics.ts';
import { watchConsumerLag } from './consumer-lag.ts';
import {
  DEFAULT_DUPLICATE_WINDOW_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  BusInstruments,
  InFlight,
  backoffDelay,
  busClosed,
  copyHeaders,
  deadLetterMsgId,
  decodePayload,
  encodePayload,
  errorMessage,
  errorReplyFor,
  fromBytes,
  interruptibleDelay,
  logHandlerFailure,
  markSpanFailed,
  noOutcomeError,
  sent,
  noResponders,
  requestTimedOut,
  resolveConsumer,
  silentLogger,
  toBytes,
  unwrapReply,
  type ResolvedConsumer,
} from './common.ts';
import { NatsBlobStore } from './nats-blobs.ts';
import { Outbox } from './nats-outbox.ts';
import { ReplyMux, RequestFailed } from './nats-replies.ts';
import { BusNamespace } from './subject.ts';
import type {
  BlobStore,
  Bus,
  BusStatus,
  Consumer,
  ConsumerDefinition,
  DeadLetter,
  DurableContext,
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

const SYSTEM = 'nats';
/** How long one pull waits for messages before the consume loop pulls again. */
const FETCH_EXPIRES_MS = 5000;
/** Upper bound for graceful steps that need the server (drain), so close() ends during an outage too. */
const DRAIN_TIMEOUT_MS = 5000;
const JS_TIMEOUT_MS = 5000;

// JetStream API error codes (nats-server's errors.json) this file reacts to.
const JS_ERR_STREAM_NOT_FOUND = 10059;
const JS_ERR_CONSUMER_NOT_FOUND = 10014;
const JS_ERR_STREAM_SUBJECT_OVERLAP = 10065;

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

function apiErrCode(err: unknown): number | undefined {
  return (err as { api_error?: { err_code?: number } } | null)?.api_error?.err_code;
}

function natsCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

const isStreamNotFound = (err: unknown) =>
  apiErrCode(err) === JS_ERR_STREAM_NOT_FOUND || /stream not found/i.test(errorMessage(err));
const isConsumerNotFound = (err: unknown) =>
  apiErrCode(err) === JS_ERR_CONSUMER_NOT_FOUND || /consumer (not found|deleted)/i.test(errorMessage(err));
const isAlreadyInUse = (err: unknown) => /already (in use|exists)/i.test(errorMessage(err));

/** Transport errors as the ServiceErrors callers are promised. */
function transportError(err: unknown, what: string): ServiceError {
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

function toNatsHeaders(h: Headers | undefined): MsgHdrs | undefined {
  if (h === undefined) return undefined;
  let out: MsgHdrs | undefined;
  for (const k in h) {
    out ??= natsHeaders();
    out.set(k, h[k]!);
  }
  return out;
}

/** The payload of a message's bytes (module-level, so receiving a message creates no closure). */
const decodeData = (data: Uint8Array): unknown => decodePayload(fromBytes(data));

/** Message headers for the handler; the JetStream ones (`Nats-*`) are the bus's business. */
function fromNatsHeaders(h: MsgHdrs | undefined): Headers {
  const out: Headers = {};
  if (!h) return out;
  for (const [k, values] of h) {
    if (/^nats-/i.test(k)) continue;
    out[k] = values.join(', ');
  }
  return out;
}

/** What a NatsDurableConsumer (and the blob store) needs from its bus. */
export interface NatsInternals {
  readonly nc: NatsConnection;
  readonly js: JetStreamClient;
  readonly ns: BusNamespace;
  readonly log: Logger;
  readonly instruments: BusInstruments;
  readonly replicas: number;
  jsm(): Promise<JetStreamManager>;
  /** Re-applies a stream definition this bus ensured before (after a server lost its state). */
  reapplyStream(name: string): Promise<boolean>;
  publishDeadLetter(fullSubject: string, text: string, headers: Headers, msgId: string): Promise<void>;
}

/** The cluster bus: core NATS for request/reply and events, JetStream for streams and blobs. */
export class NatsBus implements Bus, NatsInternals {
  readonly kind = 'nats' as const;
  readonly blobs: BlobStore;
  readonly js: JetStreamClient;
  readonly ns: BusNamespace;
  readonly log: Logger;
  readonly instruments: BusInstruments;
  readonly replicas: number;
  private jsmPromise: Promise<JetStreamManager> | null = null;
  private readonly replies: ReplyMux;
  /** Requests and replies, sent together once per event-loop turn (see Outbox). */
  private readonly outbox = new Outbox();
  private connected = true;
  private closing: Promise<void> | null = null;
  private closed = false;
  private readonly listeners = new Set<(s: BusStatus) => void>();
  private readonly subs = new Set<Subscription>();
  private readonly consumers = new Set<NatsDurableConsumer>();
  /** Definitions ensured through this bus, by caller's name, to recreate a stream a server lost. */
  private readonly streamDefs = new Map<string, StreamDefinition>();

  /**
   * Connects (failing fast if no server answers now) and then keeps reconnecting forever,
   * so a service rides out nats-server restarts without being restarted itself.
   */
  static async connect(opts: NatsBusOptions): Promise<NatsBus> {
    const replicas = opts.streamReplicas ?? 1;
    const servers = opts.url
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    let nc: NatsConnection;
    try {
      nc = await connect({
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
    } catch (err) {
      throw new Error(`Cannot connect to NATS at ${opts.url}: ${errorMessage(err)}`, { cause: err });
    }
    return new NatsBus(nc, opts, replicas);
  }

  private constructor(
    readonly nc: NatsConnection,
    opts: NatsBusOptions,
    replicas: number,
  ) {
    this.ns = new BusNamespace(opts.prefix);
    this.log = (opts.logger ?? silentLogger).child({ bus: 'nats', client: opts.name });
    this.instruments = new BusInstruments(SYSTEM, this.log, opts.tracing);
    this.replicas = replicas;
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

  /**
   * Sending (request, publish, blobs) works until close() has let the handlers in flight
   * finish, so that their last replies and follow-up messages still go out.
   */
  private assertOpen(): void {
    if (this.closed || this.nc.isClosed()) throw busClosed();
  }

  /** New subscriptions, streams and consumers are refused as soon as close() starts. */
  private assertAccepting(): void {
    if (this.closing || this.nc.isClosed()) throw busClosed();
  }

  /** Created on first use, so a bus whose server has no JetStream still does request/reply. */
  jsm(): Promise<JetStreamManager> {
    this.jsmPromise ??= this.nc.jetstreamManager({ timeout: JS_TIMEOUT_MS }).catch((err: unknown) => {
      this.jsmPromise = null;
      throw transportError(err, 'JetStream');
    });
    return this.jsmPromise;
  }

  request<Res = unknown>(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<Res> {
    return this.instruments.request(subject, opts.headers, (headers) => {
      this.assertOpen();
      const full = this.ns.subject(subject);
      const timeout = opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const data = toBytes(encodePayload(payload, subject));
      return this.replies.request(full, data, timeout, toNatsHeaders(headers)).then(
        (reply) => unwrapReply<Res>(fromBytes(reply.data), subject),
        (err: unknown) => {
          if (err instanceof RequestFailed) {
            if (err.reason === 'no-responders') throw noResponders(subject);
            if (err.reason === 'timeout') throw requestTimedOut(subject, timeout);
            throw busClosed();
          }
          throw transportError(err, subject);
        },
      );
    });
  }

  handle(subject: string, handler: RequestHandler, opts: { queue?: string } = {}): Subscription {
    return this.addSubscription(subject, opts.queue, (m, inFlight) => {
      const meta: MessageMeta = { subject: this.ns.strip(m.subject), headers: fromNatsHeaders(m.headers) };
      const reply = this.instruments.answer(subject, meta, handler, m.data, decodeData);
      if (typeof reply === 'string') {
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
    return this.addSubscription(subject, opts.queue, (m, inFlight) => {
      const meta: MessageMeta = { subject: this.ns.strip(m.subject), headers: fromNatsHeaders(m.headers) };
      this.instruments.deliver(subject, meta, handler, m.data, decodeData, inFlight);
    });
  }

  private addSubscription(
    subject: string,
    queue: string | undefined,
    run: (m: Msg, inFlight: InFlight) => void,
  ): Subscription {
    this.assertAccepting();
    const full = this.ns.subject(subject, { wildcards: true });
    const inFlight = new InFlight();
    const sub = this.nc.subscribe(full, {
      ...(queue !== undefined ? { queue } : {}),
      callback: (err, msg) => {
        if (err) {
          this.log.error({ err, subject }, 'subscription error');
          return;
        }
        run(msg, inFlight);
      },
    });
    const handle: Subscription = {
      unsubscribe: async () => {
        this.subs.delete(handle);
        if (!sub.isClosed()) {
          // Drain lets requests already routed to this member be answered; bounded, because
          // during an outage the server cannot confirm it.
          const timer = new Promise((r) => setTimeout(r, DRAIN_TIMEOUT_MS).unref());
          await Promise.race([sub.drain().catch(() => {}), timer]);
          if (!sub.isClosed()) sub.unsubscribe();
        }
        await inFlight.idle();
      },
    };
    this.subs.add(handle);
    return handle;
  }

  /** Sends a reply with this turn's batch; published messages (no reply subject) need none. Never throws. */
  private respond(m: Msg, subject: string, reply: string): void {
    if (!m.reply) return;
    this.outbox.send(() => this.respondNow(m, subject, reply));
  }

  private respondNow(m: Msg, subject: string, reply: string): void {
    try {
      m.respond(toBytes(reply));
    } catch (err) {
      if (natsCode(err) === ErrorCode.MaxPayloadExceeded) {
        this.safeRespond(
          m,
          errorReplyFor(
            new ServiceError('payload_too_large', `Reply of ${subject} is too large`),
            subject,
            this.log,
          ),
        );
      } else {
        this.log.warn({ err, subject }, 'could not send a reply');
      }
    }
  }

  private safeRespond(m: Msg, reply: string): void {
    try {
      m.respond(toBytes(reply));
    } catch (err) {
      this.log.warn({ err, subject: m.subject }, 'could not send a reply');
    }
  }

  publish(subject: string, payload: unknown, opts?: { headers?: Headers }): Promise<void> {
    try {
      this.assertOpen();
      const full = this.ns.subject(subject);
      const data = toBytes(encodePayload(payload, subject));
      const headers = opts?.headers;
      if (this.instruments.tracing) {
        this.instruments.publishTraced(subject, headers, (h) =>
          this.nc.publish(full, data, { headers: toNatsHeaders(h) }),
        );
      } else {
        this.nc.publish(
          full,
          data,
          headers === undefined ? undefined : { headers: toNatsHeaders(copyHeaders(headers)) },
        );
        this.instruments.published();
      }
      return sent();
    } catch (err) {
      return sent(transportError(err, subject));
    }
  }

  async ensureStream(def: StreamDefinition): Promise<void> {
    this.assertAccepting();
    if (!Array.isArray(def.subjects) || def.subjects.length === 0) {
      throw new ServiceError('internal', `Stream ${def.name} needs at least one subject`);
    }
    def.subjects.forEach((s) => this.ns.subject(s, { wildcards: true }));
    await this.applyStream(def);
    this.streamDefs.set(def.name, def);
  }

  private async applyStream(def: StreamDefinition): Promise<void> {
    const jsm = await this.jsm();
    const name = this.ns.stream(def.name);
    const subjects = def.subjects.map((s) => this.ns.subject(s, { wildcards: true }));
    const maxAgeMs = def.maxAgeMs && def.maxAgeMs > 0 ? def.maxAgeMs : 0;
    const windowMs = def.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
    // JetStream refuses a duplicate window longer than the stream's max age.
    const duplicateWindow = nanos(maxAgeMs ? Math.min(windowMs, maxAgeMs) : windowMs);
    const maxAge = nanos(maxAgeMs);
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
    } catch (err) {
      if (apiErrCode(err) === JS_ERR_STREAM_SUBJECT_OVERLAP) {
        throw new ServiceError('conflict', `Subjects of stream ${def.name} overlap with another stream`);
      }
      throw transportError(err, `stream ${def.name}`);
    }
  }

  async reapplyStream(name: string): Promise<boolean> {
    const def = this.streamDefs.get(name);
    if (!def) return false;
    await this.applyStream(def);
    return true;
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
    const data = toBytes(encodePayload(payload, subject));
    const pa = await this.instruments.publishDurable(subject, opts.headers, async (headers) => {
      try {
        return await this.js.publish(full, data, {
          ...(opts.msgId !== undefined ? { msgID: opts.msgId } : {}),
          headers: toNatsHeaders(headers),
          timeout: JS_TIMEOUT_MS,
        });
      } catch (err) {
        if (natsCode(err) === ErrorCode.NoResponders)
          throw new ServiceError('unavailable', `No stream captures ${subject}`);
        if (natsCode(err) === ErrorCode.Timeout) {
          throw new ServiceError(
            'timeout',
            `JetStream did not confirm a message on ${subject} within ${JS_TIMEOUT_MS} ms`,
          );
        }
        throw transportError(err, subject);
      }
    });
    return { stream: this.ns.streamName(pa.stream), seq: pa.seq, duplicate: pa.duplicate };
  }

  async publishDeadLetter(fullSubject: string, text: string, headers: Headers, msgId: string): Promise<void> {
    const jsm = await this.jsm();
    let durable = true;
    try {
      await jsm.streams.find(fullSubject);
    } catch (err) {
      if (!/no stream matches/i.test(errorMessage(err))) throw err;
      durable = false;
    }
    if (durable) {
      await this.js.publish(fullSubject, toBytes(text), {
        msgID: msgId,
        headers: toNatsHeaders(headers),
        timeout: JS_TIMEOUT_MS,
      });
    } else {
      this.nc.publish(fullSubject, toBytes(text), { headers: toNatsHeaders(headers) });
    }
    busMessagesPublished.inc({ kind: durable ? 'durable' : 'core' });
  }

  async consume(def: ConsumerDefinition, handler: DurableHandler): Promise<Consumer> {
    this.assertAccepting();
    const cfg = resolveConsumer(def);
    const consumer: NatsDurableConsumer = new NatsDurableConsumer(this, cfg, handler, () =>
      this.consumers.delete(consumer),
    );
    await consumer.start();
    if (this.closing) {
      // close() began while the consumer was being created and did not see it
      await consumer.stop();
      throw busClosed();
    }
    this.consumers.add(consumer);
    return consumer;
  }

  onStatus(listener: (status: BusStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  isConnected(): boolean {
    return this.connected && !this.nc.isClosed() && this.closing === null;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.consumers].map((c) => c.stop()));
      await Promise.all([...this.subs].map((s) => s.unsubscribe()));
      this.closed = true;
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
    })();
    return this.closing;
  }
}

/**
 * A durable pull consumer. Pulls only as many messages as it has free handler slots, so
 * a message never waits in a local buffer while its ack deadline runs, and several
 * processes pulling from the same durable share the work.
 */
class NatsDurableConsumer implements Consumer {
  private readonly inFlight = new InFlight();
  private readonly abort = new AbortController();
  private slotWaiters: (() => void)[] = [];
  private batch: ConsumerMessages | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private stopping = false;
  private readonly stream: string;
  private readonly durable: string;
  private readonly fullFilter?: string;
  private readonly fullDeadLetter: string;
  private readonly log: Logger;
  private lag: { stop(): void } | null = null;

  constructor(
    private readonly bus: NatsInternals,
    private readonly cfg: ResolvedConsumer,
    private readonly handler: DurableHandler,
    private readonly onStopped: () => void,
  ) {
    this.stream = bus.ns.stream(cfg.stream);
    this.durable = bus.ns.durable(cfg.durable);
    if (cfg.filterSubject) this.fullFilter = bus.ns.subject(cfg.filterSubject, { wildcards: true });
    this.fullDeadLetter = bus.ns.subject(cfg.deadLetterSubject);
    this.log = bus.log.child({ stream: cfg.stream, durable: cfg.durable });
  }

  async start(): Promise<void> {
    await this.ensureConsumer();
    // Zero until something happens, so "none" reads as 0 rather than as no data.
    const labels = { stream: this.cfg.stream, durable: this.cfg.durable };
    busRedeliveries.inc(labels, 0);
    busDeliveries.inc({ ...labels, outcome: 'dead_letter' }, 0);
    this.lag = watchConsumerLag({
      jsm: () => this.bus.jsm(),
      stream: this.stream,
      durable: this.durable,
      labels,
      log: this.log,
    });
    this.loopDone = this.loop();
  }

  /** Creates the durable, or updates it when this code asks for other settings. */
  private async ensureConsumer(): Promise<void> {
    const jsm = await this.bus.jsm();
    const want = {
      ack_wait: nanos(this.cfg.ackWaitMs),
      // One delivery more than allowed: when the last allowed one times out (a crashed
      // worker), the message still comes back once, to be dead-lettered without the handler.
      max_deliver: this.cfg.maxDeliver + 1,
      ...(this.fullFilter ? { filter_subject: this.fullFilter } : {}),
    };
    let info: ConsumerInfo | null = null;
    try {
      info = await jsm.consumers.info(this.stream, this.durable);
    } catch (err) {
      if (isStreamNotFound(err)) throw new ServiceError('not_found', `No stream named ${this.cfg.stream}`);
      if (!isConsumerNotFound(err)) throw transportError(err, `consumer ${this.cfg.durable}`);
    }
    if (!info) {
      const config: Partial<ConsumerConfig> = {
        durable_name: this.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ...want,
      };
      try {
        await jsm.consumers.add(this.stream, config);
        return;
      } catch (err) {
        if (isStreamNotFound(err)) throw new ServiceError('not_found', `No stream named ${this.cfg.stream}`);
        if (!isAlreadyInUse(err)) throw transportError(err, `consumer ${this.cfg.durable}`);
        info = await jsm.consumers.info(this.stream, this.durable);
      }
    }
    const c = info.config;
    if (
      c.ack_wait !== want.ack_wait ||
      c.max_deliver !== want.max_deliver ||
      (c.filter_subject ?? '') !== (want.filter_subject ?? '')
    ) {
      try {
        await jsm.consumers.update(this.stream, this.durable, {
          ...want,
          ...(this.fullFilter ? {} : { filter_subject: '' }),
        });
        this.log.info('durable consumer updated');
      } catch (err) {
        throw new ServiceError(
          'internal',
          `Durable ${this.cfg.durable} on ${this.cfg.stream} exists with other settings that cannot be changed: ${errorMessage(err)}`,
        );
      }
    }
  }

  private wake(): void {
    const w = this.slotWaiters;
    this.slotWaiters = [];
    for (const resolve of w) resolve();
  }

  private slotFree(): Promise<void> {
    if (this.stopping || this.inFlight.size < this.cfg.concurrency) return Promise.resolve();
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  /**
   * Pull, dispatch, repeat, until stop(). Every failure (server restarting, consumer or
   * stream gone, JetStream timeouts) is logged and retried after a growing pause; a lost
   * consumer or stream is recreated. Nothing here ends the loop but stop().
   */
  private async loop(): Promise<void> {
    let failures = 0;
    let consumer: JsConsumer | null = null;
    while (!this.stopping) {
      await this.slotFree();
      if (this.stopping) break;
      const startedAt = Date.now();
      let received = 0;
      try {
        consumer ??= await this.bus.js.consumers.get(this.stream, this.durable);
        const batch = await consumer.fetch({
          max_messages: this.cfg.concurrency - this.inFlight.size,
          expires: FETCH_EXPIRES_MS,
        });
        this.batch = batch;
        // stop() may have come while the pull was being set up, and found no batch to end
        if (this.stopping) void batch.close().catch(() => {});
        for await (const m of batch) {
          received++;
          if (this.stopping) {
            // arrived while stopping: hand it straight back for another client
            this.safely(() => m.nak());
            continue;
          }
          this.dispatch(m);
        }
        if (failures > 0) this.log.info('durable consumer receiving again');
        failures = 0;
      } catch (err) {
        this.batch = null;
        if (this.stopping) break;
        failures++;
        consumer = null;
        this.log.warn({ err, failures }, 'durable consumer pull failed; retrying');
        await this.recover(err);
        await interruptibleDelay(Math.min(250 * 2 ** (failures - 1), 5000), this.abort.signal);
        continue;
      }
      this.batch = null;
      // A pull addressed to a consumer that no longer exists is not refused, it just
      // expires: after an empty pull, look the consumer up again (one cheap API call per
      // idle period), so a lost consumer or stream is noticed and recreated.
      if (received === 0) consumer = null;
      if (received === 0 && Date.now() - startedAt < FETCH_EXPIRES_MS / 2 && !this.stopping) {
        // A pull that ends at once with nothing means the server refused it or the
        // connection is going away; pause instead of spinning.
        await interruptibleDelay(250, this.abort.signal);
      }
    }
  }

  /** Recreates what the server lost (a server restarted without its store, or someone deleted it). */
  private async recover(err: unknown): Promise<void> {
    try {
      if (isStreamNotFound(err)) {
        const recreated = await this.bus.reapplyStream(this.cfg.stream);
        if (recreated) this.log.warn('stream was missing and has been recreated');
      }
      if (isStreamNotFound(err) || isConsumerNotFound(err)) {
        await this.ensureConsumer();
        this.log.warn('durable consumer was missing and has been recreated');
      }
    } catch (e) {
      this.log.warn({ err: e }, 'could not recreate the durable consumer yet');
    }
  }

  private safely(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      // the connection is closed or closing; the server redelivers after ack wait
      this.log.debug({ err }, 'could not signal the server');
    }
  }

  private dispatch(m: JsMsg): void {
    this.inFlight
      .track(this.process(m))
      // the server redelivers after ack wait; nothing else to do but say so
      .catch((err: unknown) =>
        this.log.error({ err, subject: m.subject }, 'durable delivery failed unexpectedly'),
      )
      .finally(() => this.wake());
  }

  private async process(m: JsMsg): Promise<void> {
    const headers = fromNatsHeaders(m.headers);
    const msgId = m.headers?.get('Nats-Msg-Id') || undefined;
    const seq = m.info.streamSequence;
    const deliveryCount = m.info.deliveryCount;
    const subject = this.bus.ns.strip(m.subject);
    const labels = { stream: this.cfg.stream, durable: this.cfg.durable };
    if (deliveryCount > 1) busRedeliveries.inc(labels);
    await this.bus.instruments.durable(this.cfg.stream, this.cfg.durable, subject, headers, async (span) => {
      const letter = (deliveries: number, error: string, payload: unknown): DeadLetter => ({
        stream: this.cfg.stream,
        durable: this.cfg.durable,
        subject,
        seq,
        ...(msgId ? { msgId } : {}),
        deliveries,
        error,
        payload,
      });
      const text = fromBytes(m.data);
      if (deliveryCount > this.cfg.maxDeliver) {
        let payload: unknown = text;
        try {
          payload = decodePayload(text);
        } catch {
          // kept as text
        }
        await this.deadLetter(
          m,
          letter(deliveryCount - 1, noOutcomeError(this.cfg.ackWaitMs), payload),
          headers,
        );
        return;
      }
      let payload: unknown;
      try {
        payload = decodePayload(text);
      } catch (err) {
        // no delivery will ever parse it
        await this.deadLetter(
          m,
          letter(deliveryCount, `payload is not JSON: ${errorMessage(err)}`, text),
          headers,
        );
        return;
      }
      const ctx: DurableContext = {
        subject,
        headers,
        stream: this.cfg.stream,
        seq,
        deliveryCount,
        ...(msgId ? { msgId } : {}),
        working: () => this.safely(() => m.working()),
      };
      try {
        await this.handler(payload, ctx);
      } catch (err) {
        markSpanFailed(span, err);
        logHandlerFailure(this.log, err, { seq, deliveryCount }, this.cfg.maxDeliver);
        if (deliveryCount >= this.cfg.maxDeliver) {
          await this.deadLetter(m, letter(deliveryCount, errorMessage(err), payload), headers);
        } else {
          this.safely(() => m.nak(backoffDelay(this.cfg.backoffMs, deliveryCount, this.cfg.maxBackoffMs)));
          busDeliveries.inc({ ...labels, outcome: 'nak' });
        }
        return;
      }
      try {
        // Wait for the server's confirmation, so that "handler done" means "will not come back".
        await m.ackAck();
        busDeliveries.inc({ ...labels, outcome: 'ack' });
      } catch (err) {
        this.log.warn({ err, seq }, 'ack not confirmed; the message may be delivered again');
      }
    });
  }

  /**
   * Publishes the dead letter, then acks. If the dead letter cannot be written and the
   * server will deliver the message once more, nak it and try again then; on that final
   * delivery retry a few times here, since the server will not deliver it again.
   */
  private async deadLetter(m: JsMsg, letter: DeadLetter, headers: Headers): Promise<void> {
    const finalDelivery = m.info.deliveryCount > this.cfg.maxDeliver;
    const attempts = finalDelivery ? 4 : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.bus.publishDeadLetter(
          this.fullDeadLetter,
          JSON.stringify(letter),
          headers,
          deadLetterMsgId(this.cfg.stream, this.cfg.durable, letter.seq),
        );
        break;
      } catch (err) {
        if (attempt >= attempts) {
          this.log.error(
            { err, seq: letter.seq },
            finalDelivery
              ? 'could not dead-letter a message; it stays in the stream but will not be delivered again'
              : 'could not dead-letter a message; retrying on its next delivery',
          );
          if (!finalDelivery) {
            this.safely(() =>
              m.nak(backoffDelay(this.cfg.backoffMs, m.info.deliveryCount, this.cfg.maxBackoffMs)),
            );
          }
          return;
        }
        this.safely(() => m.working());
        await new Promise((r) => setTimeout(r, 500 * 2 ** (attempt - 1)));
      }
    }
    this.log.warn(
      { seq: letter.seq, deliveries: letter.deliveries, error: letter.error },
      'message dead-lettered',
    );
    try {
      await m.ackAck();
    } catch (err) {
      this.log.warn({ err, seq: letter.seq }, 'ack of a dead-lettered message not confirmed');
    }
    busDeliveries.inc({ stream: this.cfg.stream, durable: this.cfg.durable, outcome: 'dead_letter' });
  }

  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true;
      this.lag?.stop();
      this.abort.abort();
      this.wake();
      // ends the pull under way; the loop sees `stopping` and returns
      this.batch?.close().catch(() => {});
      this.onStopped();
    }
    await this.loopDone;
    await this.inFlight.idle();
  }
}

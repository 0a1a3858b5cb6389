import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { busDeliveries, busMessagesPublished, busRedeliveries } from '../ops/metrics.ts';
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
  markSpanFailed,
  logHandlerFailure,
  sent,
  noOutcomeError,
  noResponders,
  requestTimedOut,
  resolveConsumer,
  silentLogger,
  unwrapReply,
  type ResolvedConsumer,
} from './common.ts';
import { FileBlobStore } from './memory-blobs.ts';
import {
  AckState,
  StreamFiles,
  type LoadedStream,
  type StoredMessage,
  type StreamConfigRecord,
} from './memory-store.ts';
import { BusNamespace, matchSubject, subjectsOverlap } from './subject.ts';
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

// The in-process bus. It is built like a tiny NATS server (the Broker, one per data
// directory and process) with clients (MemoryBus instances) attached to it: buses of one
// process that share a prefix and data directory see each other exactly as services on
// one NATS server do, and different prefixes never do. Everything a caller can observe
// (JSON copies, queue groups, timeouts, error codes, redelivery, dead letters) follows NATS.

const SYSTEM = 'chronicler-memory';
interface CoreMessage {
  /** Full (prefixed) subject. */
  subject: string;
  data: string | undefined;
  headers: Headers;
  /** Present on requests: the first reply wins. */
  reply?: (text: string) => void;
}

class CoreSub {
  closed = false;
  constructor(
    readonly pattern: string,
    readonly queue: string | undefined,
    readonly onMessage: (m: CoreMessage) => void,
  ) {}
}

/** One stream: its messages in memory (and on disk when the broker has a data directory). */
class MemStream {
  readonly messages = new Map<number, StoredMessage>();
  /** Lowest sequence that may still be stored. */
  firstSeq = 1;
  /** Highest sequence visible to consumers. */
  lastSeq = 0;
  /** Highest sequence handed out (ahead of lastSeq while a write is under way). */
  private assigned = 0;
  /** msgId -> (seq, time) for de-duplication, in publish order so pruning stops early. */
  private readonly recent = new Map<string, { seq: number; time: number }>();
  readonly durables = new Map<string, MemDurable>();
  /** Durable progress read from disk, picked up when the durable is consumed again. */
  private readonly saved: Map<string, AckState>;

  constructor(
    readonly broker: Broker,
    public config: StreamConfigRecord,
    readonly files: StreamFiles | null,
    loaded?: LoadedStream,
  ) {
    this.saved = loaded?.consumers ?? new Map();
    if (loaded) {
      for (const m of loaded.messages) this.messages.set(m.seq, m);
      this.assigned = this.lastSeq = loaded.lastSeq;
      this.firstSeq = loaded.messages[0]?.seq ?? loaded.lastSeq + 1;
      for (const m of loaded.messages) if (m.msgId) this.recent.set(m.msgId, { seq: m.seq, time: m.time });
    }
  }

  get name(): string {
    return this.config.name;
  }

  captures(subject: string): boolean {
    return this.config.subjects.some((p) => matchSubject(p, subject));
  }

  get(seq: number): StoredMessage | undefined {
    return this.messages.get(seq);
  }

  /** Drops messages older than maxAge and msgIds older than the duplicate window. */
  expire(now: number): void {
    const { maxAgeMs, duplicateWindowMs } = this.config;
    if (maxAgeMs) {
      while (this.firstSeq <= this.lastSeq) {
        const m = this.messages.get(this.firstSeq);
        if (m && m.time >= now - maxAgeMs) break;
        this.messages.delete(this.firstSeq);
        this.firstSeq++;
      }
    }
    for (const [id, r] of this.recent) {
      if (r.time >= now - duplicateWindowMs) break;
      this.recent.delete(id);
    }
  }

  async append(
    subject: string,
    data: string | undefined,
    headers: Headers,
    msgId?: string,
  ): Promise<{ seq: number; duplicate: boolean }> {
    const now = Date.now();
    this.expire(now);
    if (msgId !== undefined) {
      const prior = this.recent.get(msgId);
      if (prior) return { seq: prior.seq, duplicate: true };
    }
    const seq = ++this.assigned;
    const msg: StoredMessage = {
      seq,
      subject,
      time: now,
      headers,
      ...(msgId !== undefined ? { msgId } : {}),
      ...(data !== undefined ? { data } : {}),
    };
    // Reserve the id before the write, so a second publish racing this one is a duplicate.
    if (msgId !== undefined) this.recent.set(msgId, { seq, time: now });
    if (this.files) {
      try {
        await this.files.appendMessage(msg);
      } catch (err) {
        if (msgId !== undefined && this.recent.get(msgId)?.seq === seq) this.recent.delete(msgId);
        throw new ServiceError('unavailable', `Could not store the message: ${errorMessage(err)}`);
      }
    }
    // Writes complete in order, so sequences become visible in order.
    this.messages.set(seq, msg);
    this.lastSeq = Math.max(this.lastSeq, seq);
    for (const d of this.durables.values()) d.pump();
    return { seq, duplicate: false };
  }

  durable(fullName: string): MemDurable {
    let d = this.durables.get(fullName);
    if (!d) {
      d = new MemDurable(this, fullName, this.saved.get(fullName));
      this.saved.delete(fullName);
      this.durables.set(fullName, d);
    }
    return d;
  }

  dispose(): void {
    for (const d of this.durables.values()) d.dispose();
  }
}

interface DurableConfig extends ResolvedConsumer {
  fullFilter?: string;
  fullDeadLetter: string;
  ns: BusNamespace;
  log: Logger;
}

/**
 * A durable consumer's state on the broker, shared by every client consuming it (like a
 * JetStream pull consumer with several subscribers): which messages are done, which are
 * out for delivery (with their ack deadline), waiting for a backoff, or due again.
 */
class MemDurable {
  private cfg?: DurableConfig;
  readonly state: AckState;
  private cursor: number;
  /** Delivered and not settled. A token tells the current delivery from an earlier one that timed out. */
  private readonly pending = new Map<number, { token: number; timer?: NodeJS.Timeout }>();
  private readonly ready = new Set<number>();
  private readonly delayed = new Map<number, NodeJS.Timeout>();
  private readonly clients: MemConsumerClient[] = [];
  private nextClient = 0;
  private tokens = 0;
  private pumpScheduled = false;
  private disposed = false;

  constructor(
    readonly stream: MemStream,
    readonly fullName: string,
    saved?: AckState,
  ) {
    this.state = saved ?? new AckState(stream.firstSeq - 1);
    this.cursor = this.state.floor + 1;
  }

  /** Like a JetStream consumer update: the latest consume() call's settings apply. */
  configure(cfg: DurableConfig): void {
    this.cfg = cfg;
  }

  attach(c: MemConsumerClient): void {
    this.clients.push(c);
    this.pump();
  }

  detach(c: MemConsumerClient): void {
    const i = this.clients.indexOf(c);
    if (i >= 0) this.clients.splice(i, 1);
  }

  pump(): void {
    if (this.pumpScheduled || this.disposed) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.dispatch();
    });
  }

  private matches(m: StoredMessage): boolean {
    return !this.cfg?.fullFilter || matchSubject(this.cfg.fullFilter, m.subject);
  }

  /** Round-robin over clients with a free slot. */
  private freeClient(): MemConsumerClient | undefined {
    for (let i = 0; i < this.clients.length; i++) {
      const c = this.clients[(this.nextClient + i) % this.clients.length]!;
      if (c.hasFreeSlot()) {
        this.nextClient = (this.nextClient + i + 1) % this.clients.length;
        return c;
      }
    }
    return undefined;
  }

  /** Due redeliveries first (lowest sequence first), then messages never delivered. */
  private next(): StoredMessage | undefined {
    while (this.ready.size > 0) {
      let min = Infinity;
      for (const s of this.ready) if (s < min) min = s;
      this.ready.delete(min);
      const m = this.stream.get(min);
      if (m && !this.state.isAcked(min)) return m;
    }
    this.cursor = Math.max(this.cursor, this.stream.firstSeq);
    while (this.cursor <= this.stream.lastSeq) {
      const seq = this.cursor++;
      if (this.state.isAcked(seq) || this.pending.has(seq) || this.delayed.has(seq) || this.ready.has(seq))
        continue;
      const m = this.stream.get(seq);
      if (m && this.matches(m)) return m;
    }
    return undefined;
  }

  private dispatch(): void {
    const cfg = this.cfg;
    if (this.disposed || !cfg) return;
    this.stream.expire(Date.now());
    for (;;) {
      const client = this.freeClient();
      if (!client) return;
      const msg = this.next();
      if (!msg) return;
      const count = (this.state.deliveries.get(msg.seq) ?? 0) + 1;
      if (count > cfg.maxDeliver) {
        // The last allowed delivery ended without an outcome (ack wait expired, or the
        // process died): dead-letter it without running the handler again.
        void this.deadLetter(msg, count - 1, noOutcomeError(cfg.ackWaitMs));
        continue;
      }
      this.state.deliveries.set(msg.seq, count);
      const token = ++this.tokens;
      this.pending.set(msg.seq, { token, timer: this.ackTimer(msg.seq, token, cfg.ackWaitMs) });
      // The handler starts once the delivery is on disk: a message that crashes the process
      // must still reach maxDeliver (and the dead-letter subject) across restarts.
      const recorded = this.stream.files?.recordDelivery(this.fullName, msg.seq).catch((err: unknown) => {
        cfg.log.warn({ err, stream: this.stream.name, seq: msg.seq }, 'could not record a delivery');
      });
      client.run(msg, count, token, cfg, recorded);
    }
  }

  private ackTimer(seq: number, token: number, ackWaitMs: number): NodeJS.Timeout {
    return setTimeout(() => {
      const p = this.pending.get(seq);
      if (p?.token !== token) return;
      this.pending.delete(seq);
      this.ready.add(seq);
      this.pump();
    }, ackWaitMs);
  }

  /** ctx.working(): restarts the ack deadline of the current delivery. */
  working(seq: number, token: number): void {
    const p = this.pending.get(seq);
    if (!this.cfg || p?.token !== token || !p.timer) return;
    clearTimeout(p.timer);
    p.timer = this.ackTimer(seq, token, this.cfg.ackWaitMs);
  }

  /** The handler's outcome; ignored when this delivery already timed out and went to someone else. */
  async settle(msg: StoredMessage, token: number, failure: { error: unknown } | undefined): Promise<void> {
    const cfg = this.cfg;
    const p = this.pending.get(msg.seq);
    if (!cfg || p?.token !== token) return;
    clearTimeout(p.timer);
    p.timer = undefined;
    const labels = { stream: cfg.stream, durable: cfg.durable };
    if (!failure) {
      await this.ack(msg.seq, cfg);
      busDeliveries.inc({ ...labels, outcome: 'ack' });
      return;
    }
    const count = this.state.deliveries.get(msg.seq) ?? 1;
    if (count >= cfg.maxDeliver) {
      await this.deadLetter(msg, count, errorMessage(failure.error));
      return;
    }
    this.pending.delete(msg.seq);
    busDeliveries.inc({ ...labels, outcome: 'nak' });
    this.retryLater(msg.seq, backoffDelay(cfg.backoffMs, count, cfg.maxBackoffMs));
  }

  private retryLater(seq: number, delayMs: number): void {
    this.delayed.set(
      seq,
      setTimeout(() => {
        this.delayed.delete(seq);
        this.ready.add(seq);
        this.pump();
      }, delayMs),
    );
  }

  private async ack(seq: number, cfg: DurableConfig): Promise<void> {
    this.pending.delete(seq);
    this.state.ack(seq);
    this.state.advance(this.stream.lastSeq, (s) => {
      const m = this.stream.get(s);
      return !m || !this.matches(m);
    });
    try {
      await this.stream.files?.recordAck(this.fullName, seq);
    } catch (err) {
      // The ack holds in memory; after a restart the message comes again (at least once).
      cfg.log.error({ err, stream: this.stream.name, seq }, 'could not record an ack');
    }
  }

  private async deadLetter(msg: StoredMessage, deliveries: number, error: string): Promise<void> {
    const cfg = this.cfg;
    if (!cfg) return;
    // Busy while the dead letter is written: not handed out again meanwhile.
    this.pending.set(msg.seq, { token: ++this.tokens });
    let payload: unknown;
    try {
      payload = decodePayload(msg.data);
    } catch {
      payload = msg.data;
    }
    const letter: DeadLetter = {
      stream: cfg.stream,
      durable: cfg.durable,
      subject: cfg.ns.strip(msg.subject),
      seq: msg.seq,
      ...(msg.msgId !== undefined ? { msgId: msg.msgId } : {}),
      deliveries,
      error,
      payload,
    };
    try {
      await this.stream.broker.publishDeadLetter(
        cfg.fullDeadLetter,
        JSON.stringify(letter),
        { ...msg.headers },
        deadLetterMsgId(cfg.stream, cfg.durable, msg.seq),
      );
      cfg.log.warn(
        { stream: cfg.stream, durable: cfg.durable, seq: msg.seq, deliveries, error },
        'message dead-lettered',
      );
      await this.ack(msg.seq, cfg);
      busDeliveries.inc({ stream: cfg.stream, durable: cfg.durable, outcome: 'dead_letter' });
    } catch (err) {
      cfg.log.error(
        { err, stream: cfg.stream, durable: cfg.durable, seq: msg.seq },
        'could not dead-letter a message; will retry',
      );
      this.pending.delete(msg.seq);
      this.retryLater(msg.seq, backoffDelay(cfg.backoffMs, cfg.maxDeliver, cfg.maxBackoffMs));
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const p of this.pending.values()) clearTimeout(p.timer);
    for (const t of this.delayed.values()) clearTimeout(t);
    this.pending.clear();
    this.delayed.clear();
  }
}

/** One consume() call: a client of a durable with its own handler and concurrency. */
class MemConsumerClient implements Consumer {
  private readonly inFlight = new InFlight();
  private stopped = false;

  constructor(
    private readonly durable: MemDurable,
    private readonly concurrency: number,
    private readonly handler: DurableHandler,
    private readonly instruments: BusInstruments,
    private readonly onStopped: () => void,
  ) {}

  hasFreeSlot(): boolean {
    return !this.stopped && this.inFlight.size < this.concurrency;
  }

  run(
    msg: StoredMessage,
    deliveryCount: number,
    token: number,
    cfg: DurableConfig,
    recorded: Promise<void> | undefined,
  ): void {
    const headers = { ...msg.headers };
    const ctx: DurableContext = {
      subject: cfg.ns.strip(msg.subject),
      headers,
      stream: cfg.stream,
      seq: msg.seq,
      deliveryCount,
      ...(msg.msgId !== undefined ? { msgId: msg.msgId } : {}),
      working: () => this.durable.working(msg.seq, token),
    };
    if (deliveryCount > 1) busRedeliveries.inc({ stream: cfg.stream, durable: cfg.durable });
    const work = this.instruments.durable(cfg.stream, cfg.durable, ctx.subject, headers, async (span) => {
      await recorded;
      let failure: { error: unknown } | undefined;
      try {
        await this.handler(decodePayload(msg.data), ctx);
      } catch (error) {
        failure = { error };
        markSpanFailed(span, error);
        logHandlerFailure(
          cfg.log,
          error,
          { stream: cfg.stream, durable: cfg.durable, seq: msg.seq, deliveryCount },
          cfg.maxDeliver,
        );
      }
      await this.durable.settle(msg, token, failure);
    });
    this.inFlight
      .track(work)
      .catch((err: unknown) => cfg.log.error({ err, seq: msg.seq }, 'durable delivery failed unexpectedly'))
      .finally(() => this.durable.pump());
  }

  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.durable.detach(this);
      this.onStopped();
    }
    await this.inFlight.idle();
  }
}

/**
 * The process-wide "server" for one data directory (or for none: memory only). Buses
 * attach to it and it goes away, closing its files, when the last one closes.
 */
class Broker {
  private static readonly brokers = new Map<string, Broker>();

  static acquire(dataDir: string | undefined, log: Logger): Broker {
    const key = dataDir ? path.resolve(dataDir) : '';
    let b = Broker.brokers.get(key);
    if (!b) {
      b = new Broker(key, dataDir ? key : undefined, log);
      Broker.brokers.set(key, b);
    }
    b.refs++;
    return b;
  }

  private refs = 0;
  private readonly subs = new Set<CoreSub>();
  private readonly roundRobin = new Map<string, number>();
  readonly streams = new Map<string, MemStream>();
  private tmpBlobRoot?: string;

  private constructor(
    private readonly key: string,
    readonly dataDir: string | undefined,
    private readonly log: Logger,
  ) {
    if (dataDir) {
      for (const loaded of StreamFiles.loadAll(dataDir, log)) {
        this.streams.set(loaded.config.name, new MemStream(this, loaded.config, loaded.files, loaded));
      }
    }
  }

  blobRoot(): string {
    if (this.dataDir) return path.join(this.dataDir, 'blobs');
    this.tmpBlobRoot ??= fs.mkdtempSync(path.join(os.tmpdir(), 'chronicler-blobs-'));
    return this.tmpBlobRoot;
  }

  subscribe(sub: CoreSub): void {
    this.subs.add(sub);
  }

  unsubscribe(sub: CoreSub): void {
    sub.closed = true;
    this.subs.delete(sub);
  }

  /**
   * Delivers to every plain subscriber and to one member of each queue group, round-robin.
   * Delivery is asynchronous (as over a socket) and in publish order per subscriber.
   * Returns how many subscribers were chosen.
   */
  route(m: CoreMessage): number {
    const targets: CoreSub[] = [];
    let groups: Map<string, CoreSub[]> | undefined;
    for (const s of this.subs) {
      if (!matchSubject(s.pattern, m.subject)) continue;
      if (s.queue === undefined) targets.push(s);
      else {
        groups ??= new Map();
        const k = `${s.pattern}\u0000${s.queue}`;
        const members = groups.get(k);
        if (members) members.push(s);
        else groups.set(k, [s]);
      }
    }
    if (groups) {
      for (const [k, members] of groups) {
        const n = this.roundRobin.get(k) ?? 0;
        targets.push(members[n % members.length]!);
        this.roundRobin.set(k, (n + 1) % 1_000_000_007);
      }
    }
    for (const t of targets) {
      setImmediate(() => {
        if (!t.closed) t.onMessage(m);
      });
    }
    return targets.length;
  }

  findStream(subject: string): MemStream | undefined {
    for (const s of this.streams.values()) if (s.captures(subject)) return s;
    return undefined;
  }

  async ensureStream(config: StreamConfigRecord): Promise<MemStream> {
    for (const other of this.streams.values()) {
      if (other.name === config.name) continue;
      for (const a of config.subjects) {
        for (const b of other.config.subjects) {
          if (subjectsOverlap(a, b)) {
            throw new ServiceError(
              'conflict',
              `Subjects of stream ${config.name} overlap with stream ${other.name} (${a} / ${b})`,
            );
          }
        }
      }
    }
    const existing = this.streams.get(config.name);
    if (existing) {
      existing.config = config;
      existing.files?.writeConfig(config);
      return existing;
    }
    const files = this.dataDir ? StreamFiles.create(this.dataDir, config) : null;
    const s = new MemStream(this, config, files);
    this.streams.set(config.name, s);
    return s;
  }

  /** A dead letter is durable when a stream captures its subject, else a plain publish. */
  async publishDeadLetter(subject: string, text: string, headers: Headers, msgId: string): Promise<void> {
    const stream = this.findStream(subject);
    if (stream) {
      await stream.append(subject, text, headers, msgId);
      busMessagesPublished.inc({ kind: 'durable' });
    } else {
      this.route({ subject, data: text, headers });
      busMessagesPublished.inc({ kind: 'core' });
    }
  }

  async release(): Promise<void> {
    if (--this.refs > 0) return;
    Broker.brokers.delete(this.key);
    for (const s of this.streams.values()) s.dispose();
    await Promise.all([...this.streams.values()].map((s) => s.files?.close()));
    if (this.tmpBlobRoot) await fs.promises.rm(this.tmpBlobRoot, { recursive: true, force: true });
  }
}

export interface MemoryBusOptions {
  /** Namespace of subjects, streams, durables and buckets (BUS_PREFIX). */
  prefix: string;
  /** Where durable streams and blobs are kept; without it streams live in memory and blobs in a temp dir. */
  dataDir?: string;
  /** The client's name (the service), used in logs. */
  name?: string;
  logger?: Logger;
  /**
   * Largest payload accepted, in bytes. Default 1 MiB, the nats-server default, so that a
   * message too big for the cluster fails in embedded mode (and its tests) too.
   */
  maxPayloadBytes?: number;
  /** Spans and trace headers per message. Default: whether startTelemetry registered a tracer. */
  tracing?: boolean;
}

interface MemSubscription extends Subscription {
  readonly core: CoreSub;
}

/** The in-process bus (embedded mode); see Bus for the contract it shares with NatsBus. */
export class MemoryBus implements Bus {
  readonly kind = 'memory' as const;
  readonly blobs: BlobStore;
  private readonly ns: BusNamespace;
  private readonly log: Logger;
  private readonly broker: Broker;
  private closing: Promise<void> | null = null;
  private closed = false;
  private readonly subs = new Set<MemSubscription>();
  private readonly consumers = new Set<MemConsumerClient>();
  private readonly maxPayloadBytes: number;
  private readonly instruments: BusInstruments;

  constructor(opts: MemoryBusOptions) {
    this.maxPayloadBytes = opts.maxPayloadBytes ?? 1024 * 1024;
    this.ns = new BusNamespace(opts.prefix);
    this.log = (opts.logger ?? silentLogger).child({
      bus: 'memory',
      ...(opts.name ? { client: opts.name } : {}),
    });
    this.instruments = new BusInstruments(SYSTEM, this.log, opts.tracing);
    this.broker = Broker.acquire(opts.dataDir, this.log);
    this.blobs = new FileBlobStore(
      () => this.broker.blobRoot(),
      this.ns,
      () => this.assertOpen(),
    );
  }

  /**
   * Sending (request, publish, blobs) works until close() has let the handlers in flight
   * finish, so that their last replies and follow-up messages still go out.
   */
  private assertOpen(): void {
    if (this.closed) throw busClosed();
  }

  /** JSON text of a payload, refused like NATS refuses a message above its max_payload. */
  private encode(payload: unknown, subject: string): string | undefined {
    const text = encodePayload(payload, subject);
    if (
      text !== undefined &&
      text.length > this.maxPayloadBytes / 4 &&
      Buffer.byteLength(text) > this.maxPayloadBytes
    ) {
      throw new ServiceError('payload_too_large', `Message too large for ${subject}`);
    }
    return text;
  }

  /** New subscriptions, streams and consumers are refused as soon as close() starts. */
  private assertAccepting(): void {
    if (this.closing) throw busClosed();
  }

  request<Res = unknown>(subject: string, payload: unknown, opts: RequestOptions = {}): Promise<Res> {
    return this.instruments.request(subject, opts.headers, (headers) => {
      this.assertOpen();
      const full = this.ns.subject(subject);
      const timeoutMs = opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const data = this.encode(payload, subject);
      return new Promise<Res>((resolve, reject) => {
        let settled = false;
        const timer = setTimeout(() => {
          settled = true;
          reject(requestTimedOut(subject, timeoutMs));
        }, timeoutMs);
        const receivers = this.broker.route({
          subject: full,
          data,
          headers: headers ?? {},
          reply: (text) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            try {
              resolve(unwrapReply<Res>(text, subject));
            } catch (err) {
              reject(err);
            }
          },
        });
        if (receivers === 0) {
          settled = true;
          clearTimeout(timer);
          reject(noResponders(subject));
        }
      });
    });
  }

  /** As NATS refuses a reply above its max_payload. */
  private readonly checkReply = (text: string, subject: string): void => {
    if (text.length > this.maxPayloadBytes / 4 && Buffer.byteLength(text) > this.maxPayloadBytes) {
      throw new ServiceError('payload_too_large', `Reply of ${subject} is too large`);
    }
  };

  handle(subject: string, handler: RequestHandler, opts: { queue?: string } = {}): Subscription {
    return this.addSubscription(subject, opts.queue, (m, inFlight) => {
      const meta: MessageMeta = { subject: this.ns.strip(m.subject), headers: { ...m.headers } };
      const reply = this.instruments.answer(subject, meta, handler, m.data, decodePayload, this.checkReply);
      if (typeof reply === 'string') {
        m.reply?.(reply);
        return;
      }
      inFlight.begin();
      void reply.then((text) => {
        m.reply?.(text);
        inFlight.end();
      });
    });
  }

  subscribe(subject: string, handler: EventHandler, opts: { queue?: string } = {}): Subscription {
    return this.addSubscription(subject, opts.queue, (m, inFlight) => {
      const meta: MessageMeta = { subject: this.ns.strip(m.subject), headers: { ...m.headers } };
      this.instruments.deliver(subject, meta, handler, m.data, decodePayload, inFlight);
    });
  }

  private addSubscription(
    subject: string,
    queue: string | undefined,
    run: (m: CoreMessage, inFlight: InFlight) => void,
  ): Subscription {
    this.assertAccepting();
    const full = this.ns.subject(subject, { wildcards: true });
    if (queue !== undefined && !/^[^\s]+$/.test(queue))
      throw new ServiceError('internal', `Invalid queue group ${JSON.stringify(queue)}`);
    const inFlight = new InFlight();
    const core = new CoreSub(full, queue, (m) => run(m, inFlight));
    this.broker.subscribe(core);
    const sub: MemSubscription = {
      core,
      unsubscribe: async () => {
        this.broker.unsubscribe(core);
        this.subs.delete(sub);
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
        this.instruments.publishTraced(subject, headers, (h) =>
          this.broker.route({ subject: full, data, headers: h }),
        );
      } else {
        this.broker.route({
          subject: full,
          data,
          headers: headers === undefined ? {} : copyHeaders(headers),
        });
        this.instruments.published();
      }
      return sent();
    } catch (err) {
      return sent(err);
    }
  }

  async ensureStream(def: StreamDefinition): Promise<void> {
    this.assertAccepting();
    if (!Array.isArray(def.subjects) || def.subjects.length === 0) {
      throw new ServiceError('internal', `Stream ${def.name} needs at least one subject`);
    }
    const maxAgeMs = def.maxAgeMs && def.maxAgeMs > 0 ? def.maxAgeMs : undefined;
    const window = def.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
    await this.broker.ensureStream({
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
    const stream = this.broker.findStream(full);
    if (!stream) throw new ServiceError('unavailable', `No stream captures ${subject}`);
    const data = this.encode(payload, subject);
    const ack = await this.instruments.publishDurable(subject, opts.headers, (headers) =>
      stream.append(full, data, headers ?? {}, opts.msgId),
    );
    return { stream: this.ns.streamName(stream.name), seq: ack.seq, duplicate: ack.duplicate };
  }

  async consume(def: ConsumerDefinition, handler: DurableHandler): Promise<Consumer> {
    this.assertAccepting();
    const cfg = resolveConsumer(def);
    const stream = this.broker.streams.get(this.ns.stream(cfg.stream));
    if (!stream) throw new ServiceError('not_found', `No stream named ${cfg.stream}`);
    const fullFilter = cfg.filterSubject
      ? this.ns.subject(cfg.filterSubject, { wildcards: true })
      : undefined;
    if (fullFilter && !stream.config.subjects.some((s) => subjectsOverlap(s, fullFilter))) {
      throw new ServiceError(
        'internal',
        `Filter ${cfg.filterSubject} matches nothing in stream ${cfg.stream}`,
      );
    }
    const durable = stream.durable(this.ns.durable(cfg.durable));
    // Zero until something happens, as the NATS bus does: "none" reads as 0, not as no data.
    busRedeliveries.inc({ stream: cfg.stream, durable: cfg.durable }, 0);
    busDeliveries.inc({ stream: cfg.stream, durable: cfg.durable, outcome: 'dead_letter' }, 0);
    durable.configure({
      ...cfg,
      ...(fullFilter ? { fullFilter } : {}),
      fullDeadLetter: this.ns.subject(cfg.deadLetterSubject),
      ns: this.ns,
      log: this.log,
    });
    const client: MemConsumerClient = new MemConsumerClient(
      durable,
      cfg.concurrency,
      handler,
      this.instruments,
      () => this.consumers.delete(client),
    );
    this.consumers.add(client);
    durable.attach(client);
    return client;
  }

  onStatus(_listener: (status: BusStatus) => void): () => void {
    // Nothing to report: an in-process bus has no connection to lose.
    return () => {};
  }

  isConnected(): boolean {
    return this.closing === null;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.consumers].map((c) => c.stop()));
      await Promise.all([...this.subs].map((s) => s.unsubscribe()));
      this.closed = true;
      await this.broker.release();
    })();
    return this.closing;
  }
}

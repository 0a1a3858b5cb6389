import type { Logger } from '../logger.ts';
import { busDeliveries } from '../ops/metrics.ts';
import {
  backoffDelay,
  deadLetterMsgId,
  runDelivery,
  type Delivery,
  type Outcome,
  type ResolvedConsumer,
} from './durable.ts';
import type { BusInstruments } from './instruments.ts';
import { AckState, type StoredMessage } from './memory-store.ts';
import type { MemStream } from './memory-stream.ts';
import { matchSubject, type BusNamespace } from './subject.ts';
import type { Consumer, DeadLetter, DurableHandler } from './types.ts';
import { InFlight } from './util.ts';

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
export class MemDurable {
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
  async settle(msg: StoredMessage, token: number, outcome: Outcome): Promise<void> {
    const cfg = this.cfg;
    const p = this.pending.get(msg.seq);
    if (!cfg || p?.token !== token) return;
    clearTimeout(p.timer);
    p.timer = undefined;
    const labels = { stream: cfg.stream, durable: cfg.durable };
    if (outcome.kind === 'ack') {
      await this.ack(msg.seq, cfg);
      busDeliveries.inc({ ...labels, outcome: 'ack' });
    } else if (outcome.kind === 'retry') {
      this.pending.delete(msg.seq);
      busDeliveries.inc({ ...labels, outcome: 'nak' });
      this.retryLater(msg.seq, outcome.delayMs);
    } else {
      await this.deadLetter(msg, outcome.letter, cfg);
    }
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

  /** Writes the dead letter, then acks; the message stays out of delivery meanwhile (its pending entry). */
  private async deadLetter(msg: StoredMessage, letter: DeadLetter, cfg: DurableConfig): Promise<void> {
    try {
      const msgId = deadLetterMsgId(cfg.stream, cfg.durable, msg.seq);
      await this.stream.broker.publishDeadLetter(
        cfg.fullDeadLetter,
        JSON.stringify(letter),
        { ...msg.headers },
        msgId,
      );
      const { deliveries, error } = letter;
      cfg.log.warn({ seq: msg.seq, deliveries, error }, 'message dead-lettered');
      await this.ack(msg.seq, cfg);
      busDeliveries.inc({ stream: cfg.stream, durable: cfg.durable, outcome: 'dead_letter' });
    } catch (err) {
      cfg.log.error({ err, seq: msg.seq }, 'could not dead-letter a message; will retry');
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
export class MemConsumerClient implements Consumer {
  private readonly inFlight = new InFlight();
  private stopped = false;

  constructor(
    private readonly durable: MemDurable,
    private readonly concurrency: number,
    private readonly handler: DurableHandler,
    private readonly instruments: BusInstruments,
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
    const d: Delivery = {
      subject: cfg.ns.strip(msg.subject),
      headers: { ...msg.headers },
      seq: msg.seq,
      deliveryCount,
      text: msg.data,
      working: () => this.durable.working(msg.seq, token),
    };
    if (msg.msgId !== undefined) d.msgId = msg.msgId;
    const settle = (outcome: Outcome) => this.durable.settle(msg, token, outcome);
    const work = Promise.resolve(recorded).then(() =>
      runDelivery(cfg, cfg.log, this.instruments, this.handler, d, settle),
    );
    this.inFlight
      .track(work)
      .catch((err: unknown) => cfg.log.error({ err, seq: msg.seq }, 'durable delivery failed unexpectedly'))
      .finally(() => this.durable.pump());
  }

  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.durable.detach(this);
    }
    await this.inFlight.idle();
  }
}

import {
  AckPolicy,
  DeliverPolicy,
  nanos,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type Consumer as JsConsumer,
  type JsMsg,
} from 'nats';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { busDeliveries } from '../ops/metrics.ts';
import { fromBytes } from './codec.ts';
import { watchConsumerLag } from './consumer-lag.ts';
import {
  backoffDelay,
  deadLetterMsgId,
  runDelivery,
  type Delivery,
  type Outcome,
  type ResolvedConsumer,
} from './durable.ts';
import type { NatsBus } from './nats.ts';
import {
  fromNatsHeaders,
  isAlreadyInUse,
  isConsumerNotFound,
  isStreamNotFound,
  transportError,
} from './nats-wire.ts';
import type { Consumer, DeadLetter, DurableHandler, Headers } from './types.ts';
import { InFlight, errorMessage, interruptibleDelay } from './util.ts';

/** How long one pull waits for messages before the consume loop pulls again. */
const FETCH_EXPIRES_MS = 5000;

/**
 * A durable pull consumer. Pulls only as many messages as it has free handler slots, so
 * a message never waits in a local buffer while its ack deadline runs, and several
 * processes pulling from the same durable share the work.
 */
export class NatsDurableConsumer implements Consumer {
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
    private readonly bus: NatsBus,
    private readonly cfg: ResolvedConsumer,
    private readonly handler: DurableHandler,
  ) {
    this.stream = bus.ns.stream(cfg.stream);
    this.durable = bus.ns.durable(cfg.durable);
    if (cfg.filterSubject) this.fullFilter = bus.ns.subject(cfg.filterSubject, { wildcards: true });
    this.fullDeadLetter = bus.ns.subject(cfg.deadLetterSubject);
    this.log = bus.log.child({ stream: cfg.stream, durable: cfg.durable });
  }

  async start(): Promise<void> {
    await this.ensureConsumer();
    this.lag = watchConsumerLag({
      jsm: () => this.bus.jsm(),
      stream: this.stream,
      durable: this.durable,
      labels: { stream: this.cfg.stream, durable: this.cfg.durable },
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

  private process(m: JsMsg): Promise<void> {
    const d: Delivery = {
      subject: this.bus.ns.strip(m.subject),
      headers: fromNatsHeaders(m.headers),
      seq: m.info.streamSequence,
      deliveryCount: m.info.deliveryCount,
      text: fromBytes(m.data),
      working: () => this.safely(() => m.working()),
    };
    const msgId = m.headers?.get('Nats-Msg-Id');
    if (msgId) d.msgId = msgId;
    const settle = (o: Outcome) => this.settle(m, d.headers, o);
    return runDelivery(this.cfg, this.log, this.bus.instruments, this.handler, d, settle);
  }

  private async settle(m: JsMsg, headers: Headers, outcome: Outcome): Promise<void> {
    const labels = { stream: this.cfg.stream, durable: this.cfg.durable };
    if (outcome.kind === 'dead') return this.deadLetter(m, outcome.letter, headers);
    if (outcome.kind === 'retry') {
      this.safely(() => m.nak(outcome.delayMs));
      busDeliveries.inc({ ...labels, outcome: 'nak' });
      return;
    }
    if (!this.cfg.confirmAck) {
      // Work that may be done again: the slot is free now, a lost ack means one more delivery.
      this.safely(() => m.ack());
      busDeliveries.inc({ ...labels, outcome: 'ack' });
      return;
    }
    try {
      // Wait for the server's confirmation, so that "handler done" means "will not come back".
      await m.ackAck();
      busDeliveries.inc({ ...labels, outcome: 'ack' });
    } catch (err) {
      this.log.warn(
        { err, seq: m.info.streamSequence },
        'ack not confirmed; the message may be delivered again',
      );
    }
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
    }
    await this.loopDone;
    await this.inFlight.idle();
  }
}

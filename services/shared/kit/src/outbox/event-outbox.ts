import type { Bus } from '../bus/types.ts';
import type { DatabaseHandle, Queryable } from '../db/types.ts';
import type { Logger } from '../logger.ts';

/** One durable event to publish once the transaction that wrote it has committed. */
export interface OutboxMessage {
  subject: string;
  payload: unknown;
  /** JetStream's de-duplication id: a relay that publishes a row twice (a crash) counts once. */
  msgId: string;
}

/**
 * The table a service using an outbox creates in its schema with a committed migration:
 *
 *   create table event_outbox (
 *     id bigserial primary key,
 *     subject text not null,
 *     payload jsonb not null,
 *     msg_id text not null,
 *     created_at timestamptz not null default now(),
 *     claimed_until timestamptz
 *   );
 */
export const EVENT_OUTBOX_TABLE = 'event_outbox';

export interface EventOutboxOptions {
  db: DatabaseHandle;
  schema: string;
  bus: Bus;
  logger: Logger;
  /** How often the relay looks for rows nobody woke it for (a crash after commit). Default 1 s. */
  pollMs?: number;
  /** Rows claimed at once. Default 100. */
  batch?: number;
  /** How long a claimed row is left to its relay before another may take it (ms). Default 10 s. */
  leaseMs?: number;
}

/**
 * A transactional outbox: a change and the events announcing it commit together. A handler
 * writes its rows and `add`s its events in one transaction, answers once it has committed, and
 * `wake`s the relay, which publishes the events to JetStream (with their msgIds) and deletes
 * them. A publish that fails leaves the row for the next try: the caller already has its 2xx for
 * a change that is stored, and a retry of the request is never needed, so it never makes a
 * second change. Several replicas relay the same table: each claims rows for a lease (`for
 * update skip locked`), and a relay that dies after publishing leaves its rows to be published
 * again after the lease, which JetStream drops as duplicates (consumers are idempotent past
 * the duplicate window). In embedded mode the same table is drained into the in-process bus.
 */
export class EventOutbox {
  readonly #table: string;
  readonly #pollMs: number;
  readonly #batch: number;
  readonly #leaseMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | null = null;
  #again = false;

  constructor(private readonly opts: EventOutboxOptions) {
    this.#table = `"${opts.schema}".${EVENT_OUTBOX_TABLE}`;
    this.#pollMs = opts.pollMs ?? 1_000;
    this.#batch = opts.batch ?? 100;
    this.#leaseMs = opts.leaseMs ?? 10_000;
  }

  /** Writes the events in the caller's transaction: they commit with its change or not at all. */
  async add(tx: Queryable, ...messages: OutboxMessage[]): Promise<void> {
    for (const m of messages) {
      await tx.query(`insert into ${this.#table} (subject, payload, msg_id) values ($1, $2::jsonb, $3)`, [
        m.subject,
        JSON.stringify(m.payload),
        m.msgId,
      ]);
    }
  }

  /** After a commit that added events: relay them now (the poll only catches what a crash left). */
  wake(): void {
    void this.drain();
  }

  /** Relays periodically until stop(). */
  start(): this {
    this.#timer ??= setInterval(() => void this.drain(), this.#pollMs);
    this.#timer.unref();
    this.wake();
    return this;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => 0);
  }

  /**
   * Publishes what is waiting; answers how many were published. One drain at a time: a wake
   * during a drain runs it once more afterwards, so nothing waits for the next poll.
   */
  drain(): Promise<number> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    const run = (async () => {
      let sent = 0;
      try {
        do {
          this.#again = false;
          for (;;) {
            const n = await this.#relayBatch();
            sent += n;
            if (n < this.#batch) break;
          }
        } while (this.#again);
      } catch (err) {
        this.opts.logger.warn(
          { err },
          'event outbox: publish failed; the events stay stored and go on the next try',
        );
      }
      return sent;
    })();
    this.#running = run;
    void run.finally(() => {
      if (this.#running === run) this.#running = null;
    });
    return run;
  }

  /** Claims a batch for the lease, publishes it in order, deletes what went out. */
  async #relayBatch(): Promise<number> {
    const rows = await this.opts.db.query<{
      id: number | string;
      subject: string;
      payload: unknown;
      msg_id: string;
    }>(
      `update ${this.#table} set claimed_until = now() + make_interval(secs => $2)
        where id in (select id from ${this.#table}
                      where claimed_until is null or claimed_until < now()
                      order by id limit $1 for update skip locked)
       returning id, subject, payload, msg_id`,
      [this.#batch, this.#leaseMs / 1000],
    );
    rows.sort((a, b) => Number(a.id) - Number(b.id));
    const sent: (number | string)[] = [];
    try {
      for (const r of rows) {
        const payload = typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload;
        await this.opts.bus.publishDurable(r.subject, payload, { msgId: r.msg_id });
        sent.push(r.id);
      }
    } finally {
      if (sent.length > 0) {
        await this.opts.db.query(`delete from ${this.#table} where id = any($1::bigint[])`, [
          sent.map(String),
        ]);
      }
      const unsent = rows.filter((r) => !sent.includes(r.id)).map((r) => String(r.id));
      // Back to the queue at once (a later wake or poll tries again), not after the lease.
      if (unsent.length > 0) {
        await this.opts.db
          .query(`update ${this.#table} set claimed_until = null where id = any($1::bigint[])`, [unsent])
          .catch(() => {});
      }
    }
    return rows.length;
  }
}

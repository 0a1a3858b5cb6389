import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Bus, Logger, PublishAck } from '@chronicler/kit';

export interface OutboxMessage {
  subject: string;
  payload: unknown;
  msgId: string;
  /** Appended to the journal (one JSON line) before its first publish attempt. */
  journal?: boolean;
}

export interface OutboxRetry {
  /** First wait after a failed publish; doubles each time. Default 250. */
  initialMs?: number;
  /** Longest wait between attempts. Default 5000. */
  maxMs?: number;
}

interface Entry {
  message: OutboxMessage;
  /** Settles once the message is in the journal (or the journal failed, which is logged). */
  journaled: Promise<void>;
  resolve(ack: PublishAck): void;
}

/**
 * Durable messages of one live session, published one at a time in the order they were
 * queued, each retried with backoff until the bus acknowledges it: nothing is dropped and
 * nothing overtakes (the transcript service numbers finals in arrival order, and the end
 * message must come after every final it counts). A message waiting for the bus stays in
 * memory and, when it asks to, in the journal file, from which a crashed session can be
 * recovered; re-publishing is safe because every message carries its msgId.
 */
export class DurableOutbox {
  private readonly queue: Entry[] = [];
  private pumping = false;
  private idleWaiters: (() => void)[] = [];
  private wake: (() => void) | null = null;
  private readonly unwatch: () => void;
  private prepared = false;
  private stopped = false;
  private failures = 0;
  private journalDir: Promise<unknown> | null = null;
  /** Journal appends, one after another, in queue order. */
  private journalChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly opts: {
      bus: Bus;
      logger: Logger;
      /** JSON-lines file the journaled messages are appended to; null: none. */
      journalPath: string | null;
      retry?: OutboxRetry;
      /** Runs once before the first publish (creating the stream), retried like a publish. */
      prepare?: () => Promise<void>;
    },
  ) {
    // A reconnected bus ends the current backoff wait at once.
    this.unwatch = opts.bus.onStatus((status) => {
      if (status === 'connected' || status === 'reconnected') this.wake?.();
    });
  }

  /** Messages queued and not acknowledged yet. */
  get pending(): number {
    return this.queue.length;
  }

  /** Queues a message; resolves with its acknowledgement (however long the bus takes). */
  enqueue(message: OutboxMessage): Promise<PublishAck> {
    if (this.stopped) return Promise.reject(new Error('The live session outbox is closed'));
    // Journaled at once, not when the message reaches the head of the queue: during a long
    // outage everything waiting must already be on disk when the process dies.
    const journaled = message.journal
      ? (this.journalChain = this.journalChain.then(() => this.appendJournal(message)))
      : Promise.resolve();
    return new Promise((resolve) => {
      this.queue.push({ message, journaled, resolve });
      void this.pump();
    });
  }

  /** Resolves once every queued message is acknowledged. */
  idle(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops watching the bus; call after `idle()`. */
  stop(): void {
    this.stopped = true;
    this.unwatch();
    this.wake?.();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.queue.length > 0 && !this.stopped) {
        const entry = this.queue[0]!;
        await entry.journaled;
        let ack: PublishAck;
        try {
          if (!this.prepared && this.opts.prepare) await this.opts.prepare();
          this.prepared = true;
          ack = await this.opts.bus.publishDurable(entry.message.subject, entry.message.payload, {
            msgId: entry.message.msgId,
          });
        } catch (err) {
          await this.backoff(entry.message, err);
          continue;
        }
        if (this.failures > 0) {
          this.opts.logger.info(
            { msgId: entry.message.msgId, attempts: this.failures + 1, waiting: this.queue.length - 1 },
            'live session messages are reaching the bus again',
          );
        }
        this.failures = 0;
        this.queue.shift();
        entry.resolve(ack);
      }
    } finally {
      this.pumping = false;
    }
    if (this.queue.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async backoff(message: OutboxMessage, err: unknown): Promise<void> {
    this.failures++;
    const initial = this.opts.retry?.initialMs ?? 250;
    const max = this.opts.retry?.maxMs ?? 5000;
    const delay = Math.min(max, initial * 2 ** Math.min(this.failures - 1, 20));
    // First failure and then every tenth: a long outage should not flood the log.
    if (this.failures === 1 || this.failures % 10 === 0) {
      this.opts.logger.warn(
        { msgId: message.msgId, attempt: this.failures, waiting: this.queue.length, retryInMs: delay, err },
        'live session message not accepted by the bus; kept in order and retried',
      );
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, delay);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = null;
  }

  private async appendJournal(message: OutboxMessage): Promise<void> {
    const file = this.opts.journalPath;
    if (!file) return;
    try {
      this.journalDir ??= mkdir(path.dirname(file), { recursive: true });
      await this.journalDir;
      await appendFile(
        file,
        `${JSON.stringify({ subject: message.subject, msg_id: message.msgId, payload: message.payload })}\n`,
      );
    } catch (err) {
      // A full or broken disk must not hold back what the bus can still take.
      this.opts.logger.error({ err, file, msgId: message.msgId }, 'could not journal a live final');
    }
  }
}

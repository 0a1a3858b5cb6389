import { ServiceError } from '../errors.ts';
import type { StreamConfigRecord } from './base.ts';
import type { Broker } from './memory-broker.ts';
import { MemDurable } from './memory-durable.ts';
import { AckState, type LoadedStream, type StoredMessage, type StreamFiles } from './memory-store.ts';
import { matchSubject } from './subject.ts';
import type { Headers } from './types.ts';
import { errorMessage } from './util.ts';

/** One stream: its messages in memory (and on disk when the broker has a data directory). */
export class MemStream {
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

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { busMessagesPublished } from '../ops/metrics.ts';
import type { StreamConfigRecord } from './base.ts';
import { StreamFiles } from './memory-store.ts';
import { MemStream } from './memory-stream.ts';
import { matchSubject, subjectsOverlap } from './subject.ts';
import type { Headers } from './types.ts';

// The in-process bus is built like a tiny NATS server (the Broker, one per data directory
// and process) with clients (MemoryBus instances) attached to it: buses of one process that
// share a prefix and data directory see each other exactly as services on one NATS server
// do, and different prefixes never do.

export interface CoreMessage {
  /** Full (prefixed) subject. */
  subject: string;
  data: string | undefined;
  headers: Headers;
  /** Present on requests: the first reply wins. */
  reply?: (text: string) => void;
}

/** Concrete subjects whose matching subscriptions the broker keeps (see Broker.matches). */
const MATCH_CACHE_MAX = 10_000;

export class CoreSub {
  closed = false;
  constructor(
    readonly pattern: string,
    readonly queue: string | undefined,
    readonly onMessage: (m: CoreMessage) => void,
  ) {}
}

/**
 * The process-wide "server" for one data directory (or for none: memory only). Buses
 * attach to it and it goes away, closing its files, when the last one closes.
 */
export class Broker {
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
  /**
   * The subscriptions matching a concrete subject, in subscription order, as nats-server's
   * sublist caches them: the embedded process holds a few hundred subscriptions, and matching
   * each message against every pattern was 5% of its CPU under a load of session reads.
   * Emptied whenever a subscription comes or goes, and when it holds MATCH_CACHE_MAX subjects.
   */
  private readonly matches = new Map<string, CoreSub[]>();
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
    this.matches.clear();
  }

  unsubscribe(sub: CoreSub): void {
    sub.closed = true;
    if (this.subs.delete(sub)) this.matches.clear();
  }

  private matching(subject: string): CoreSub[] {
    let found = this.matches.get(subject);
    if (found === undefined) {
      found = [];
      for (const s of this.subs) if (matchSubject(s.pattern, subject)) found.push(s);
      if (this.matches.size >= MATCH_CACHE_MAX) this.matches.clear();
      this.matches.set(subject, found);
    }
    return found;
  }

  /**
   * Delivers to every plain subscriber and to one member of each queue group, round-robin.
   * Delivery is asynchronous (as over a socket) and in publish order per subscriber.
   * Returns how many subscribers were chosen.
   */
  route(m: CoreMessage): number {
    const targets: CoreSub[] = [];
    let groups: Map<string, CoreSub[]> | undefined;
    for (const s of this.matching(m.subject)) {
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

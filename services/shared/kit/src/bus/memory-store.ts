import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../logger.ts';
import type { StreamConfigRecord } from './base.ts';
import type { Headers } from './types.ts';

// Files behind the in-process bus's durable streams. Layout, per stream:
//
//   <dataDir>/bus/streams/<stream>/stream.json           the definition (subjects, limits)
//   <dataDir>/bus/streams/<stream>/messages.jsonl        one message per line, append-only
//   <dataDir>/bus/streams/<stream>/consumers/<durable>.jsonl   what each durable has been
//                                                        delivered ({"d":seq}) and acked ({"a":seq})
//
// Appending is all the hot path does; files are compacted when they are opened. Writes
// reach the OS before the publish or ack resolves (no fsync per message), which survives a
// crash of the process, the same promise JetStream makes with its default sync interval.

export interface StoredMessage {
  seq: number;
  /** Full (prefixed) subject. */
  subject: string;
  /** Publish time, ms since the epoch. */
  time: number;
  msgId?: string;
  headers: Headers;
  /** JSON text of the payload; absent for an empty payload. */
  data?: string;
}

/**
 * A durable's progress: every sequence up to `floor` is done, plus the sequences in `acked`
 * above it; `deliveries` counts deliveries of messages not acked yet (so maxDeliver still
 * holds for a message that crashed the process).
 */
export class AckState {
  floor: number;
  readonly acked = new Set<number>();
  readonly deliveries = new Map<number, number>();

  constructor(floor = 0) {
    this.floor = floor;
  }

  isAcked(seq: number): boolean {
    return seq <= this.floor || this.acked.has(seq);
  }

  ack(seq: number): void {
    if (seq > this.floor) this.acked.add(seq);
    this.deliveries.delete(seq);
  }

  /**
   * Moves the floor over acked sequences and over those that need no ack (`skippable`:
   * expired, never written, or outside the durable's filter), so state stays small.
   */
  advance(upTo: number, skippable: (seq: number) => boolean): void {
    while (this.floor < upTo) {
      const next = this.floor + 1;
      if (!this.acked.has(next) && !skippable(next)) break;
      this.floor = next;
      this.acked.delete(next);
      this.deliveries.delete(next);
    }
  }
}

const write = promisify(fs.write);
const close = promisify(fs.close);

/**
 * An append-only file. Lines written while a write is under way are batched into the next
 * single write, which keeps lines whole and in order without a write per line.
 */
class AppendLog {
  private readonly fd: number;
  private queue: { line: string; resolve: () => void; reject: (err: Error) => void }[] = [];
  private writing: Promise<void> | null = null;
  private closed = false;

  constructor(readonly file: string) {
    this.fd = fs.openSync(file, 'a');
  }

  append(line: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.file} is closed`));
    return new Promise((resolve, reject) => {
      this.queue.push({ line, resolve, reject });
      this.writing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const buf = Buffer.from(batch.map((b) => b.line + '\n').join(''), 'utf8');
      try {
        let off = 0;
        while (off < buf.length) {
          const { bytesWritten } = await write(this.fd, buf, off, buf.length - off);
          off += bytesWritten;
        }
        for (const b of batch) b.resolve();
      } catch (err) {
        for (const b of batch) b.reject(err as Error);
      }
    }
    this.writing = null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writing;
    await close(this.fd);
  }
}

/** Writes a whole file so that readers see the old or the new content, never a torn one. */
function writeFileAtomicSync(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

export interface LoadedStream {
  config: StreamConfigRecord;
  messages: StoredMessage[];
  /** Highest sequence ever assigned (also when those messages are gone). */
  lastSeq: number;
  consumers: Map<string, AckState>;
  files: StreamFiles;
}

/** The files of one stream. */
export class StreamFiles {
  private readonly messages: AppendLog;
  private readonly consumerLogs = new Map<string, AppendLog>();

  private constructor(readonly dir: string) {
    fs.mkdirSync(path.join(dir, 'consumers'), { recursive: true });
    this.messages = new AppendLog(path.join(dir, 'messages.jsonl'));
  }

  static rootOf(dataDir: string): string {
    return path.join(dataDir, 'bus', 'streams');
  }

  /** Creates the files of a new stream. */
  static create(dataDir: string, config: StreamConfigRecord): StreamFiles {
    const files = new StreamFiles(path.join(StreamFiles.rootOf(dataDir), config.name));
    files.writeConfig(config);
    return files;
  }

  /**
   * Loads (and compacts) every stream under `dataDir`: expired messages and torn lines are
   * dropped, consumer logs are folded into their floor, and files that shrink are rewritten.
   */
  static loadAll(dataDir: string, log: Logger, now = Date.now()): LoadedStream[] {
    const root = StreamFiles.rootOf(dataDir);
    if (!fs.existsSync(root)) return [];
    const out: LoadedStream[] = [];
    for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const dir = path.join(root, entry.name);
      let config: StreamConfigRecord;
      try {
        config = JSON.parse(fs.readFileSync(path.join(dir, 'stream.json'), 'utf8')) as StreamConfigRecord;
      } catch (err) {
        log.warn({ err, dir }, 'skipping a stream directory without a readable stream.json');
        continue;
      }
      out.push(loadStream(dir, config, log, now));
    }
    return out;
  }

  writeConfig(config: StreamConfigRecord): void {
    writeFileAtomicSync(path.join(this.dir, 'stream.json'), JSON.stringify(config, null, 2) + '\n');
  }

  appendMessage(m: StoredMessage): Promise<void> {
    return this.messages.append(JSON.stringify(m));
  }

  recordDelivery(durable: string, seq: number): Promise<void> {
    return this.consumerLog(durable).append(`{"d":${seq}}`);
  }

  recordAck(durable: string, seq: number): Promise<void> {
    return this.consumerLog(durable).append(`{"a":${seq}}`);
  }

  private consumerLog(durable: string): AppendLog {
    let l = this.consumerLogs.get(durable);
    if (!l) {
      l = new AppendLog(path.join(this.dir, 'consumers', `${durable}.jsonl`));
      this.consumerLogs.set(durable, l);
    }
    return l;
  }

  async close(): Promise<void> {
    await Promise.all([this.messages.close(), ...[...this.consumerLogs.values()].map((l) => l.close())]);
  }

  /** Used while loading: the constructor is private so files are only opened via create/loadAll. */
  static open(dir: string): StreamFiles {
    return new StreamFiles(dir);
  }
}

function readLines(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function loadStream(dir: string, config: StreamConfigRecord, log: Logger, now: number): LoadedStream {
  const file = path.join(dir, 'messages.jsonl');
  const lines = readLines(file);
  const messages: StoredMessage[] = [];
  let lastSeq = 0;
  let dropped = 0;
  const oldest = config.maxAgeMs ? now - config.maxAgeMs : -Infinity;
  for (const line of lines) {
    let rec: Partial<StoredMessage> & { lastSeq?: number };
    try {
      rec = JSON.parse(line) as typeof rec;
    } catch {
      // a torn last line from a crash mid-write; the publisher never got an ack for it
      dropped++;
      continue;
    }
    if (typeof rec.lastSeq === 'number') {
      lastSeq = Math.max(lastSeq, rec.lastSeq);
      dropped++; // the header is rewritten anyway when the file is
      continue;
    }
    if (typeof rec.seq !== 'number' || typeof rec.subject !== 'string' || typeof rec.time !== 'number') {
      dropped++;
      continue;
    }
    lastSeq = Math.max(lastSeq, rec.seq);
    if (rec.time < oldest) {
      dropped++;
      continue;
    }
    messages.push({
      seq: rec.seq,
      subject: rec.subject,
      time: rec.time,
      msgId: rec.msgId,
      headers: rec.headers ?? {},
      data: rec.data,
    });
  }
  messages.sort((a, b) => a.seq - b.seq);
  // Rewriting is needed when something was dropped other than a lone header line.
  const headerOnly = dropped === 1 && lines.length > 0 && lines[0]!.startsWith('{"lastSeq"');
  if (dropped > 0 && !headerOnly) {
    const body = [JSON.stringify({ lastSeq }), ...messages.map((m) => JSON.stringify(m))].join('\n') + '\n';
    writeFileAtomicSync(file, body);
    log.debug({ stream: config.name, dropped, kept: messages.length }, 'compacted stream file');
  }

  const present = new Set(messages.map((m) => m.seq));
  const firstSeq = messages.length > 0 ? messages[0]!.seq : lastSeq + 1;
  const consumers = new Map<string, AckState>();
  const consumerDir = path.join(dir, 'consumers');
  if (fs.existsSync(consumerDir)) {
    for (const name of fs.readdirSync(consumerDir)) {
      if (!name.endsWith('.jsonl')) continue;
      const cfile = path.join(consumerDir, name);
      const clines = readLines(cfile);
      const state = new AckState(0);
      for (const line of clines) {
        let rec: { floor?: number; a?: number; d?: number; n?: number };
        try {
          rec = JSON.parse(line) as typeof rec;
        } catch {
          continue;
        }
        if (typeof rec.floor === 'number') state.floor = Math.max(state.floor, rec.floor);
        else if (typeof rec.a === 'number') state.ack(rec.a);
        else if (typeof rec.d === 'number' && !state.isAcked(rec.d)) {
          state.deliveries.set(rec.d, rec.n ?? (state.deliveries.get(rec.d) ?? 0) + 1);
        }
      }
      // everything before the first message still stored is gone, hence done
      state.floor = Math.max(state.floor, firstSeq - 1);
      for (const s of [...state.acked]) if (s <= state.floor) state.acked.delete(s);
      for (const s of [...state.deliveries.keys()])
        if (s <= state.floor || state.acked.has(s)) state.deliveries.delete(s);
      state.advance(lastSeq, (seq) => !present.has(seq));
      const compact = [
        JSON.stringify({ floor: state.floor }),
        ...[...state.acked].sort((a, b) => a - b).map((s) => `{"a":${s}}`),
        ...[...state.deliveries].map(([s, n]) => `{"d":${s},"n":${n}}`),
      ];
      if (compact.length < clines.length) writeFileAtomicSync(cfile, compact.join('\n') + '\n');
      consumers.set(name.slice(0, -'.jsonl'.length), state);
    }
  }
  return { config, messages, lastSeq, consumers, files: StreamFiles.open(dir) };
}

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AckPolicy,
  DeliverPolicy,
  nanos,
  StorageType,
  type JetStreamManager,
  type ObjectInfo,
  type ObjectStore,
  type StreamInfo,
} from 'nats';
import { ServiceError } from '../errors.ts';
import { errorMessage, formatDigest } from './util.ts';
import type { NatsBus } from './nats.ts';
import type { BlobInfo, BlobRange, BlobStore } from './types.ts';

/** Chunk size of stored objects (the NATS object store default). */
const CHUNK_SIZE = 128 * 1024;
/**
 * The object store publishes chunks without waiting for each ack, so nothing slows a fast
 * source down but the socket. A round trip to the server every few MiB bounds what is
 * buffered in this process, whatever the size of the object.
 */
const FLUSH_EVERY_BYTES = 4 * 1024 * 1024;
/** Chunks read ahead when downloading (8 x 128 KiB). */
const READ_AHEAD_CHUNKS = 8;

/** The part of nats.js's DirectStreamAPI used here: a message by subject, with its sequence. */
interface DirectGet {
  getMessage(
    stream: string,
    query: { seq: number; next_by_subj: string } | { last_by_subj: string },
  ): Promise<{ seq: number }>;
}

/** Objects whose first chunk's sequence is remembered (a few numbers each). */
const FIRST_SEQS_KEPT = 1000;

/** Blobs in the JetStream object store, one (prefixed) bucket per caller's bucket. */
export class NatsBlobStore implements BlobStore {
  private readonly stores = new Map<string, Promise<ObjectStore>>();
  /** Per object version (nuid) whose chunks are consecutive: the sequence of its first chunk. */
  private readonly firstSeqs = new Map<string, number>();

  constructor(
    private readonly bus: NatsBus,
    private readonly assertOpen: () => void,
  ) {}

  /** Opens (creating when missing) a bucket; cached, but forgotten after a failure so the next call retries. */
  private store(bucket: string): Promise<ObjectStore> {
    const full = this.bus.ns.bucket(bucket);
    let s = this.stores.get(full);
    if (!s) {
      s = this.bus.js.views.os(full, { storage: StorageType.File, replicas: this.bus.replicas });
      s.catch(() => this.stores.delete(full));
      this.stores.set(full, s);
    }
    return s;
  }

  /**
   * The bucket for reads: null when it does not exist. Reads must not create buckets
   * (js.views.os creates what it opens), or every lookup of a wrong name would leave one.
   */
  private async existing(bucket: string): Promise<ObjectStore | null> {
    const full = this.bus.ns.bucket(bucket);
    if (!this.stores.has(full)) {
      const jsm = await this.bus.jsm();
      try {
        await jsm.streams.info(`OBJ_${full}`);
      } catch (err) {
        if (/stream not found/i.test(errorMessage(err))) return null;
        throw err;
      }
    }
    return this.store(bucket);
  }

  private toInfo(bucket: string, info: ObjectInfo): BlobInfo {
    const contentType = info.metadata?.contentType;
    return {
      bucket,
      name: info.name,
      size: info.size,
      digest: info.digest,
      ...(contentType ? { contentType } : {}),
      createdAt: info.mtime,
    };
  }

  async put(
    bucket: string,
    name: string,
    source: Readable | AsyncIterable<Uint8Array>,
    opts: { contentType?: string } = {},
  ): Promise<BlobInfo> {
    this.assertOpen();
    const os = await this.wrap(() => this.store(bucket), bucket);
    const it = (source as AsyncIterable<Uint8Array | string>)[Symbol.asyncIterator]();
    const nc = this.bus.nc;
    let sinceFlush = 0;
    let sourceError: { error: unknown } | undefined;
    // Pull-based: the object store asks for the next chunk only after taking the previous.
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sinceFlush >= FLUSH_EVERY_BYTES) {
          await nc.flush();
          sinceFlush = 0;
        }
        let next: IteratorResult<Uint8Array | string>;
        try {
          next = await it.next();
        } catch (error) {
          sourceError = { error };
          throw error;
        }
        const { value, done } = next;
        if (done) {
          controller.close();
          return;
        }
        const chunk = typeof value === 'string' ? Buffer.from(value) : value;
        sinceFlush += chunk.length;
        controller.enqueue(chunk);
      },
      async cancel() {
        await it.return?.();
      },
    });
    try {
      const info = await os.put(
        {
          name,
          options: { max_chunk_size: CHUNK_SIZE },
          ...(opts.contentType ? { metadata: { contentType: opts.contentType } } : {}),
        },
        stream,
      );
      return this.toInfo(bucket, info);
    } catch (err) {
      // the caller's stream failing (an aborted upload) is reported as itself
      if (sourceError) throw sourceError.error;
      throw ServiceError.is(err)
        ? err
        : new ServiceError('unavailable', `Blob store ${bucket}: ${errorMessage(err)}`);
    }
  }

  async get(bucket: string, name: string, range?: BlobRange): Promise<Readable | null> {
    this.assertOpen();
    const os = await this.wrap(() => this.existing(bucket), bucket);
    if (!os) return null;
    const found = await this.wrap(() => os.info(name), bucket);
    if (!found || found.deleted) return null;
    const info = found;
    const start = range?.start ?? 0;
    const end = Math.min(range?.end ?? info.size - 1, info.size - 1);
    if (info.size === 0 || end < start) return Readable.from([], { objectMode: false });
    const whole = start === 0 && end === info.size - 1;
    // Every chunk but the last holds exactly max_chunk_size bytes (the object store's put
    // drains its buffer in chunks of that size), so chunk `start / size` holds `start`.
    const chunkSize = info.options?.max_chunk_size ?? CHUNK_SIZE;
    const firstChunk = Math.floor(start / chunkSize);
    const full = this.bus.ns.bucket(bucket);
    const stream = `OBJ_${full}`;
    const subject = `$O.${full}.C.${info.nuid}`;
    const startSeq =
      firstChunk === 0
        ? undefined
        : await this.wrap(() => this.chunkSeq(stream, subject, info, firstChunk), bucket);
    // Not os.get(): it pushes the whole object into a stream without backpressure. An
    // ordered pull consumer on the object's chunks asks for more only as the reader reads.
    const consumer = await this.wrap(
      () =>
        this.bus.js.consumers.get(stream, {
          filterSubjects: subject,
          ...(startSeq === undefined
            ? {}
            : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq }),
        }),
      bucket,
    );
    async function* chunks(): AsyncGenerator<Uint8Array> {
      const messages = await consumer.consume({ max_messages: READ_AHEAD_CHUNKS });
      const hash = whole ? createHash('sha256') : null;
      let at = firstChunk * chunkSize;
      let sent = 0;
      try {
        for await (const m of messages) {
          if (m.data.length > 0) {
            hash?.update(m.data);
            const from = Math.max(0, start - at);
            const to = Math.min(m.data.length, end + 1 - at);
            at += m.data.length;
            if (to > from) {
              sent += to - from;
              yield from === 0 && to === m.data.length ? m.data : m.data.subarray(from, to);
            }
          }
          if (at > end || m.info.pending === 0) break;
        }
        const corrupt = hash
          ? sent !== info.size || formatDigest(hash.digest()) !== info.digest
          : sent !== end - start + 1;
        if (corrupt) {
          throw new ServiceError('internal', `Blob ${bucket}/${name} is corrupt (size or digest differ)`);
        }
      } finally {
        await messages.close().catch(() => {});
        await consumer.delete().catch(() => {});
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  /**
   * The stream sequence of chunk `index` of an object. Its chunks are published in order, so
   * when nothing else was written between its first and its last (one put at a time in the
   * bucket) they sit at consecutive sequences: two direct gets tell, and the answer is
   * remembered per object (a nuid names one immutable version). When puts interleaved, a
   * filtered consumer's pending count at a sequence says how many chunks lie at or after
   * it; stepping forward by the chunks still missing never passes the one sought.
   */
  private async chunkSeq(stream: string, subject: string, info: ObjectInfo, index: number): Promise<number> {
    const known = this.firstSeqs.get(info.nuid);
    if (known !== undefined) return known + index;
    const jsm = await this.bus.jsm();
    // Object store streams allow direct gets (nats.js sets allow_direct on them); the
    // manager's `direct` API is not in its exported interface (nats/lib/jetstream/jsm.d.ts).
    const { direct } = jsm as JetStreamManager & { direct: DirectGet };
    const first = (await direct.getMessage(stream, { seq: 1, next_by_subj: subject })).seq;
    const last = (await direct.getMessage(stream, { last_by_subj: subject })).seq;
    if (last - first === info.chunks - 1) {
      if (this.firstSeqs.size >= FIRST_SEQS_KEPT) this.firstSeqs.delete(this.firstSeqs.keys().next().value!);
      this.firstSeqs.set(info.nuid, first);
      return first + index;
    }
    let seq = first + index;
    for (;;) {
      const probe = await jsm.consumers.add(stream, {
        filter_subject: subject,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: seq,
        ack_policy: AckPolicy.None,
        mem_storage: true,
        num_replicas: 1,
        inactive_threshold: nanos(60_000),
      });
      await jsm.consumers.delete(stream, probe.name).catch(() => {});
      const at = info.chunks - probe.num_pending;
      if (at >= index) return seq;
      seq += index - at;
    }
  }

  async info(bucket: string, name: string): Promise<BlobInfo | null> {
    this.assertOpen();
    const os = await this.wrap(() => this.existing(bucket), bucket);
    if (!os) return null;
    const info = await this.wrap(() => os.info(name), bucket);
    return info && !info.deleted ? this.toInfo(bucket, info) : null;
  }

  async delete(bucket: string, name: string): Promise<boolean> {
    this.assertOpen();
    const os = await this.wrap(() => this.existing(bucket), bucket);
    if (!os) return false;
    const info = await this.wrap(() => os.info(name), bucket);
    if (!info || info.deleted) return false;
    await this.wrap(() => os.delete(name), bucket);
    return true;
  }

  async expireAfter(bucket: string, maxAgeMs: number): Promise<void> {
    this.assertOpen();
    const full = this.bus.ns.bucket(bucket);
    const stream = `OBJ_${full}`;
    const maxAge = nanos(Math.max(1, Math.round(maxAgeMs)));
    await this.wrap(async () => {
      const jsm = await this.bus.jsm();
      let info: StreamInfo | null = null;
      try {
        info = await jsm.streams.info(stream);
      } catch (err) {
        if (!/stream not found/i.test(errorMessage(err))) throw err;
      }
      if (!info) {
        // Created here with its TTL (the bucket's stream max_age), before any put can create it without.
        const s = this.bus.js.views.os(full, {
          storage: StorageType.File,
          replicas: this.bus.replicas,
          ttl: maxAge,
        });
        s.catch(() => this.stores.delete(full));
        this.stores.set(full, s);
        await s;
      } else if (info.config.max_age !== maxAge) {
        await jsm.streams.update(stream, { ...info.config, max_age: maxAge });
      }
    }, bucket);
  }

  /**
   * An object's chunks go to `$O.<bucket>.C.<nuid>` before its meta names that nuid: chunks
   * whose nuid no meta names belong to a put in progress or to one that died. The last
   * chunk's time tells which; those idle for `idleMs` are purged.
   */
  async removeAbandoned(bucket: string, idleMs: number): Promise<number> {
    this.assertOpen();
    const os = await this.existing(bucket);
    if (!os) return 0;
    const full = this.bus.ns.bucket(bucket);
    const stream = `OBJ_${full}`;
    const prefix = `$O.${full}.C.`;
    return this.wrap(async () => {
      const jsm = await this.bus.jsm();
      const info = await jsm.streams.info(stream, { subjects_filter: `${prefix}>` });
      const chunkSubjects = Object.keys(info.state.subjects ?? {});
      if (chunkSubjects.length === 0) return 0;
      const named = async () => new Set((await os.list()).map((o) => o.nuid));
      const before = await named();
      const cutoff = Date.now() - idleMs;
      const idle: string[] = [];
      for (const subject of chunkSubjects) {
        if (before.has(subject.slice(prefix.length))) continue;
        const last = await jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(() => null);
        if (last && last.time.getTime() <= cutoff) idle.push(subject);
      }
      if (idle.length === 0) return 0;
      // A put that finished meanwhile has its meta by now: look again before purging.
      const after = await named();
      let removed = 0;
      for (const subject of idle) {
        if (after.has(subject.slice(prefix.length))) continue;
        await jsm.streams.purge(stream, { filter: subject });
        removed++;
      }
      return removed;
    }, bucket);
  }

  private async wrap<T>(fn: () => Promise<T>, bucket: string): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (ServiceError.is(err)) throw err;
      throw new ServiceError('unavailable', `Blob store ${bucket}: ${errorMessage(err)}`);
    }
  }
}

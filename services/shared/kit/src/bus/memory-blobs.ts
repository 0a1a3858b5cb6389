import { createHash, randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { formatDigest } from './util.ts';
import type { BusNamespace } from './subject.ts';
import type { BlobInfo, BlobRange, BlobStore } from './types.ts';

/** The longest pause between two sweeps of an expiring bucket that is being written. */
const SWEEP_AT_MOST_EVERY_MS = 60_000;

/**
 * The in-process bus's blob store: one directory per (prefixed) bucket, each object a data
 * file plus a small JSON sidecar with its BlobInfo. Objects are named on disk by the
 * SHA-256 of their name, so any name is safe (no `..`, no length limit) and the real name
 * lives in the sidecar.
 */
export class FileBlobStore implements BlobStore {
  /** Buckets given a maximum age, and when each was last swept. */
  private readonly expiring = new Map<string, { maxAgeMs: number; sweptAt: number }>();
  /** Temp files of this process's puts in progress. */
  private readonly writing = new Set<string>();

  constructor(
    private readonly root: () => string,
    private readonly ns: BusNamespace,
    private readonly assertOpen: () => void,
  ) {}

  private paths(bucket: string, name: string) {
    if (typeof name !== 'string' || name.length === 0) throw new Error('A blob needs a non-empty name');
    const dir = path.join(this.root(), this.ns.bucket(bucket));
    const stem = createHash('sha256').update(name).digest('hex');
    return { dir, stem, data: path.join(dir, `${stem}.data`), meta: path.join(dir, `${stem}.json`) };
  }

  async put(
    bucket: string,
    name: string,
    source: Readable | AsyncIterable<Uint8Array>,
    opts: { contentType?: string } = {},
  ): Promise<BlobInfo> {
    this.assertOpen();
    const p = this.paths(bucket, name);
    await fsp.mkdir(p.dir, { recursive: true });
    // A unique temp file per put: two concurrent puts of one name never write into each
    // other, and a reader never sees a half-written object (rename is atomic).
    const tmp = path.join(p.dir, `.${p.stem}.${randomUUID()}.tmp`);
    const hash = createHash('sha256');
    let size = 0;
    // Opened here rather than by createWriteStream, whose lazy open could create the file
    // after a failed pipeline has already cleaned up.
    const fh = await fsp.open(tmp, 'wx');
    this.writing.add(tmp);
    try {
      await pipeline(
        source,
        new Transform({
          transform(chunk: Uint8Array | string, _enc, done) {
            const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
            hash.update(buf);
            size += buf.length;
            done(null, buf);
          },
        }),
        fh.createWriteStream(),
      );
      const info: BlobInfo = {
        bucket,
        name,
        size,
        digest: formatDigest(hash.digest()),
        ...(opts.contentType ? { contentType: opts.contentType } : {}),
        createdAt: new Date().toISOString(),
      };
      await fsp.rename(tmp, p.data);
      const metaTmp = `${p.meta}.${randomUUID()}.tmp`;
      await fsp.writeFile(metaTmp, JSON.stringify(info));
      await fsp.rename(metaTmp, p.meta);
      this.sweepSometimes(bucket);
      return info;
    } catch (err) {
      await fh.close().catch(() => {});
      await fsp.rm(tmp, { force: true });
      throw err;
    } finally {
      this.writing.delete(tmp);
    }
  }

  async get(bucket: string, name: string, range?: BlobRange): Promise<Readable | null> {
    this.assertOpen();
    const p = this.paths(bucket, name);
    const info = await this.info(bucket, name);
    if (info === null) return null;
    // Open first, then stream: a delete or replace after this point does not cut the read short.
    const fh = await fsp.open(p.data, 'r').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (!fh) return null;
    if (!range) return fh.createReadStream();
    // A positioned read: the file is read from `start`, never from its beginning.
    const end = Math.min(range.end, info.size - 1);
    if (end < range.start) {
      await fh.close();
      return Readable.from([], { objectMode: false });
    }
    return fh.createReadStream({ start: range.start, end });
  }

  async info(bucket: string, name: string): Promise<BlobInfo | null> {
    this.assertOpen();
    const p = this.paths(bucket, name);
    try {
      return JSON.parse(await fsp.readFile(p.meta, 'utf8')) as BlobInfo;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(bucket: string, name: string): Promise<boolean> {
    this.assertOpen();
    const p = this.paths(bucket, name);
    // The sidecar goes first: once it is gone, info and get answer "no such object".
    let existed = true;
    await fsp.unlink(p.meta).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
      existed = false;
    });
    await fsp.rm(p.data, { force: true });
    return existed;
  }

  async expireAfter(bucket: string, maxAgeMs: number): Promise<void> {
    this.assertOpen();
    this.expiring.set(bucket, { maxAgeMs, sweptAt: Date.now() });
    // Leftovers of an earlier run on the same data directory go now, not at the next sweep.
    await this.sweep(bucket, maxAgeMs);
  }

  /**
   * Sweeps an expiring bucket in the background when a put finds the last sweep older than
   * a tenth of its maximum age (at most a minute): nothing runs while nothing is written,
   * and an object outlives its maximum age by a bounded margin.
   */
  private sweepSometimes(bucket: string): void {
    const e = this.expiring.get(bucket);
    if (!e) return;
    const now = Date.now();
    if (now - e.sweptAt < Math.min(e.maxAgeMs / 10, SWEEP_AT_MOST_EVERY_MS)) return;
    e.sweptAt = now;
    void this.sweep(bucket, e.maxAgeMs).catch(() => {});
  }

  async removeAbandoned(bucket: string, idleMs: number): Promise<number> {
    this.assertOpen();
    const { dir, files } = await this.list(bucket);
    return this.removeOrphans(dir, files, Date.now() - idleMs);
  }

  /** Deletes the bucket's objects created more than `maxAgeMs` ago, and leftovers as old. */
  async sweep(bucket: string, maxAgeMs: number): Promise<number> {
    const { dir, files } = await this.list(bucket);
    const cutoff = Date.now() - maxAgeMs;
    let removed = 0;
    for (const f of files.filter((f) => /^[0-9a-f]{64}\.json$/.test(f))) {
      const info = await fsp
        .readFile(path.join(dir, f), 'utf8')
        .then((t) => JSON.parse(t) as BlobInfo)
        .catch(() => null);
      if (info && Date.parse(info.createdAt) < cutoff && (await this.delete(bucket, info.name))) removed++;
    }
    await this.removeOrphans(dir, files, cutoff);
    return removed;
  }

  private async list(bucket: string): Promise<{ dir: string; files: string[] }> {
    const dir = path.join(this.root(), this.ns.bucket(bucket));
    const files = await fsp.readdir(dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    return { dir, files };
  }

  /**
   * Removes, once untouched since `cutoff`, the temp files of puts that died and data whose
   * sidecar was never written; this process's own puts in progress are left alone whatever
   * their pace. The number removed.
   */
  private async removeOrphans(dir: string, files: string[], cutoff: number): Promise<number> {
    let removed = 0;
    for (const f of files) {
      const file = path.join(dir, f);
      const orphan =
        f.endsWith('.tmp') || (f.endsWith('.data') && !files.includes(f.replace(/\.data$/, '.json')));
      if (!orphan || this.writing.has(file)) continue;
      const st = await fsp.stat(file).catch(() => null);
      if (st && st.mtimeMs <= cutoff) {
        await fsp.rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }
}

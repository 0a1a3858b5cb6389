import { randomUUID } from 'node:crypto';
import type {
  Cache,
  Coordination,
  Lock,
  LockManager,
  RateLimitAllResult,
  RateLimitHit,
  RateLimitResult,
  RateLimiter,
  SemaphoreLease,
  SemaphoreManager,
  WindowCounters,
} from './types.ts';
import {
  checkedCounts,
  checkedHits,
  positiveInteger,
  positiveMs,
  toJson,
  WINDOW_BUCKETS,
} from './validate.ts';

export interface MemoryCoordinationOptions {
  /** How often expired entries are dropped. Default 30 s. */
  sweepIntervalMs?: number;
}

interface LockEntry {
  token: string;
  expiresAt: number;
}

interface HitLog {
  /** Times of the allowed hits still in the window, oldest first; never longer than the limit. */
  hits: number[];
  windowMs: number;
}

interface WindowCounter {
  bucketMs: number;
  /** Bucket index (time / bucketMs) -> hits. */
  buckets: Map<number, number>;
}

interface CacheEntry {
  json: string;
  expiresAt: number;
}

/**
 * Locks, rate limits and cache for the embedded mode, where every service shares one
 * process: the same semantics as RedisCoordination, without a server.
 *
 * Times come from the monotonic clock, so a wall-clock step (NTP, suspend) neither frees
 * locks early nor holds them forever. Expired entries are dropped when touched and by a
 * periodic sweep, so keys that are never touched again do not accumulate.
 */
export class MemoryCoordination implements Coordination {
  readonly kind = 'memory' as const;
  readonly locks: LockManager;
  readonly rateLimiter: RateLimiter;
  readonly cache: Cache;
  readonly semaphores: SemaphoreManager;
  readonly windowCounters: WindowCounters;

  readonly #locks = new Map<string, LockEntry>();
  readonly #rates = new Map<string, HitLog>();
  readonly #cache = new Map<string, CacheEntry>();
  readonly #counters = new Map<string, WindowCounter>();
  /** Per key: lease id -> expiry. */
  readonly #semaphores = new Map<string, Map<string, number>>();
  readonly #sweeper: NodeJS.Timeout;
  #closed = false;

  constructor(opts: MemoryCoordinationOptions = {}) {
    this.#sweeper = setInterval(() => this.#sweep(), opts.sweepIntervalMs ?? 30_000);
    // Housekeeping alone must not keep a process alive that has nothing else to do.
    this.#sweeper.unref();

    this.locks = { acquire: async (key, ttlMs) => this.#acquire(key, ttlMs) };
    this.rateLimiter = {
      hit: async (key, limit, windowMs) => this.#hit(key, limit, windowMs),
      hitAll: async (hits) => this.#hitAll(hits),
    };
    this.cache = {
      get: async <T>(key: string) => this.#cacheGet<T>(key),
      set: async (key, value, ttlMs) => this.#cacheSet(key, value, ttlMs),
      del: async (key) => {
        this.#assertOpen();
        this.#cache.delete(key);
      },
    };
    this.semaphores = {
      acquire: async (key, limit, leaseMs) => this.#semAcquire(key, limit, leaseMs),
      count: async (key) => {
        this.#assertOpen();
        return this.#liveLeases(key)?.size ?? 0;
      },
    };
    this.windowCounters = { add: async (entries) => this.#countAdd(entries) };
  }

  #countAdd(entries: Parameters<WindowCounters['add']>[0]): number[] {
    this.#assertOpen();
    const now = performance.now();
    return checkedCounts(entries).map(({ key, bucketMs, delta }) => {
      let counter = this.#counters.get(key);
      if (!counter || counter.bucketMs !== bucketMs) {
        counter = { bucketMs, buckets: new Map() };
        this.#counters.set(key, counter);
      }
      const current = Math.floor(now / bucketMs);
      if (delta > 0) counter.buckets.set(current, (counter.buckets.get(current) ?? 0) + delta);
      let total = 0;
      for (const [index, hits] of counter.buckets) {
        if (index > current - WINDOW_BUCKETS) total += hits;
        else counter.buckets.delete(index);
      }
      if (counter.buckets.size === 0) this.#counters.delete(key);
      return total;
    });
  }

  async ping(): Promise<boolean> {
    return !this.#closed;
  }

  /** Entries held right now, expired ones included until touched or swept (for metrics). */
  stats(): { locks: number; rateLimitKeys: number; cacheEntries: number } {
    return { locks: this.#locks.size, rateLimitKeys: this.#rates.size, cacheEntries: this.#cache.size };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#locks.clear();
    this.#rates.clear();
    this.#cache.clear();
    this.#semaphores.clear();
    this.#counters.clear();
  }

  /** The leases of `key` with the expired ones dropped; undefined when none is left. */
  #liveLeases(key: string): Map<string, number> | undefined {
    const leases = this.#semaphores.get(key);
    if (!leases) return undefined;
    const now = performance.now();
    for (const [id, expiresAt] of leases) if (expiresAt <= now) leases.delete(id);
    if (leases.size === 0) {
      this.#semaphores.delete(key);
      return undefined;
    }
    return leases;
  }

  #semAcquire(key: string, limit: number, leaseMs: number): SemaphoreLease | null {
    this.#assertOpen();
    positiveInteger('limit', limit);
    const lease = positiveMs('leaseMs', leaseMs);
    let leases = this.#liveLeases(key);
    if (leases && leases.size >= limit) return null;
    if (!leases) {
      leases = new Map();
      this.#semaphores.set(key, leases);
    }
    const id = randomUUID();
    leases.set(id, performance.now() + lease);
    const own = (): Map<string, number> | undefined => {
      this.#assertOpen();
      const live = this.#liveLeases(key);
      return live?.has(id) ? live : undefined;
    };
    return {
      key,
      id,
      extend: async (ms) => {
        const ttl = positiveMs('leaseMs', ms);
        const live = own();
        if (!live) return false;
        live.set(id, performance.now() + ttl);
        return true;
      },
      release: async () => {
        const live = own();
        if (!live) return false;
        live.delete(id);
        if (live.size === 0) this.#semaphores.delete(key);
        return true;
      },
    };
  }

  #acquire(key: string, ttlMs: number): Lock | null {
    this.#assertOpen();
    const ttl = positiveMs('ttlMs', ttlMs);
    const now = performance.now();
    const held = this.#locks.get(key);
    if (held && held.expiresAt > now) return null;
    const token = randomUUID();
    this.#locks.set(key, { token, expiresAt: now + ttl });
    return new MemoryLock(key, token, this.#locks, () => this.#assertOpen());
  }

  #hit(key: string, limit: number, windowMs: number): RateLimitResult {
    const { allowed, remaining, retryAfterMs } = this.#hitAll([{ key, limit, windowMs }]);
    return { allowed, remaining, retryAfterMs };
  }

  /** Every key checked first, then the hit recorded in all or none: RedisCoordination's HIT_ALL. */
  #hitAll(requested: readonly RateLimitHit[]): RateLimitAllResult {
    this.#assertOpen();
    const hits = checkedHits(requested);
    const now = performance.now();
    const logs = hits.map(({ key, windowMs }) => {
      let log = this.#rates.get(key);
      if (!log) {
        log = { hits: [], windowMs };
        this.#rates.set(key, log);
      }
      log.windowMs = windowMs;
      dropOlderThan(log.hits, now - windowMs);
      return log;
    });
    let remaining = Infinity;
    let wait = 0;
    let refusedKey: string | null = null;
    hits.forEach(({ key, limit, windowMs }, i) => {
      const log = logs[i]!;
      if (log.hits.length < limit) {
        remaining = Math.min(remaining, limit - log.hits.length - 1);
        return;
      }
      // The window frees a slot when its oldest hit leaves; refused hits are not recorded,
      // so a client that keeps retrying does not push its own wait further out. When the
      // limit was lowered the log can hold more than `limit` hits: the one that must leave
      // is the (length - limit + 1)-th oldest.
      const freeing = log.hits[log.hits.length - limit] ?? now;
      wait = Math.max(wait, Math.max(1, Math.ceil(freeing + windowMs - now)));
      refusedKey ??= key;
    });
    if (refusedKey !== null) return { allowed: false, remaining: 0, retryAfterMs: wait, refusedKey };
    for (const log of logs) log.hits.push(now);
    return { allowed: true, remaining, retryAfterMs: 0, refusedKey: null };
  }

  #cacheGet<T>(key: string): T | undefined {
    this.#assertOpen();
    const entry = this.#cache.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= performance.now()) {
      this.#cache.delete(key);
      return undefined;
    }
    return JSON.parse(entry.json) as T;
  }

  #cacheSet(key: string, value: unknown, ttlMs: number): void {
    this.#assertOpen();
    const ttl = positiveMs('ttlMs', ttlMs);
    this.#cache.set(key, { json: toJson(value), expiresAt: performance.now() + ttl });
  }

  #sweep(): void {
    const now = performance.now();
    for (const [key, entry] of this.#locks) if (entry.expiresAt <= now) this.#locks.delete(key);
    for (const [key, entry] of this.#cache) if (entry.expiresAt <= now) this.#cache.delete(key);
    for (const key of [...this.#semaphores.keys()]) this.#liveLeases(key);
    for (const [key, log] of this.#rates) {
      const newest = log.hits[log.hits.length - 1];
      if (newest === undefined || newest <= now - log.windowMs) this.#rates.delete(key);
    }
    for (const [key, counter] of this.#counters) {
      const newest = Math.max(...counter.buckets.keys());
      if (newest <= Math.floor(now / counter.bucketMs) - WINDOW_BUCKETS) this.#counters.delete(key);
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('MemoryCoordination is closed');
  }
}

class MemoryLock implements Lock {
  constructor(
    readonly key: string,
    readonly token: string,
    private readonly store: Map<string, LockEntry>,
    private readonly assertOpen: () => void,
  ) {}

  async release(): Promise<boolean> {
    this.assertOpen();
    const entry = this.#ownEntry();
    if (!entry) return false;
    this.store.delete(this.key);
    return true;
  }

  async extend(ttlMs: number): Promise<boolean> {
    this.assertOpen();
    const ttl = positiveMs('ttlMs', ttlMs);
    const entry = this.#ownEntry();
    if (!entry) return false;
    entry.expiresAt = performance.now() + ttl;
    return true;
  }

  /** The entry while this acquisition still holds it: same token and not expired. */
  #ownEntry(): LockEntry | undefined {
    const entry = this.store.get(this.key);
    if (!entry || entry.token !== this.token) return undefined;
    if (entry.expiresAt <= performance.now()) {
      this.store.delete(this.key);
      return undefined;
    }
    return entry;
  }
}

/** Removes the leading hits at or before `cutoff` (the log is in ascending order). */
function dropOlderThan(hits: number[], cutoff: number): void {
  let stale = 0;
  while (stale < hits.length && hits[stale]! <= cutoff) stale++;
  if (stale > 0) hits.splice(0, stale);
}

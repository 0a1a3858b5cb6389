/**
 * Coordination between replicas: locks, rate limits and a small cache. Redis in the
 * cluster, memory in the embedded mode; both pass the same test suite.
 */
export interface Coordination {
  readonly kind: 'redis' | 'memory';
  readonly locks: LockManager;
  readonly rateLimiter: RateLimiter;
  readonly cache: Cache;
  readonly semaphores: SemaphoreManager;
  readonly windowCounters: WindowCounters;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface LockManager {
  /** Takes `key` for ttlMs, or returns null when someone else holds it. */
  acquire(key: string, ttlMs: number): Promise<Lock | null>;
}

export interface Lock {
  readonly key: string;
  /** Random per acquisition: only this holder can release or extend it. */
  readonly token: string;
  /** False when the lock had expired or belongs to someone else now. */
  release(): Promise<boolean>;
  extend(ttlMs: number): Promise<boolean>;
}

export interface RateLimitResult {
  allowed: boolean;
  /** Hits left in the current window after this one. */
  remaining: number;
  /** When not allowed: how long until one more hit would be. */
  retryAfterMs: number;
}

/** One of the limits a request is held to at once (see RateLimiter.hitAll). */
export interface RateLimitHit {
  key: string;
  limit: number;
  windowMs: number;
}

export interface RateLimitAllResult extends RateLimitResult {
  /** The first key (in the order given) that refused the hit; null when allowed. */
  refusedKey: string | null;
}

export interface RateLimiter {
  /** Sliding window: at most `limit` hits per `windowMs` for `key`. Counts the hit only when allowed. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult>;
  /**
   * Several sliding windows checked and counted as one atomic step (one Redis round trip):
   * the hit is allowed when every key allows it, and then counted against all of them; when
   * any refuses, it is counted against none. `remaining` is the smallest left; when refused,
   * `retryAfterMs` is the longest wait of the refusing keys. Keys must be distinct.
   */
  hitAll(hits: readonly RateLimitHit[]): Promise<RateLimitAllResult>;
}

export interface Cache {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  del(key: string): Promise<void>;
}

/**
 * Counting semaphores shared by every replica: at most `limit` leases per key at once. A
 * lease expires unless extended, so the slots of a replica that crashed free themselves.
 */
export interface SemaphoreManager {
  /** Takes one of `limit` slots of `key` for leaseMs, or returns null when all are taken. */
  acquire(key: string, limit: number, leaseMs: number): Promise<SemaphoreLease | null>;
  /** Leases of `key` held now (expired ones not counted). */
  count(key: string): Promise<number>;
}

export interface SemaphoreLease {
  readonly key: string;
  /** Random per acquisition. */
  readonly id: string;
  /** Pushes the expiry to leaseMs from now; false when the lease had already expired or was released. */
  extend(leaseMs: number): Promise<boolean>;
  /** Frees the slot; false when it had already expired or was released. */
  release(): Promise<boolean>;
}

/** One key's share of a WindowCounters.add call. */
export interface WindowCount {
  key: string;
  /** The window the total covers: the current bucket and the nine before it (buckets of windowMs / 10). */
  windowMs: number;
  /** Added to the current bucket first (0 to only read). */
  delta: number;
}

/**
 * Counters over a sliding window of ten buckets, shared by every replica: the store behind
 * SyncedRateLimiter, which counts hits locally and hands them over in batches. Approximate by
 * design: the window slides a bucket (a tenth of it) at a time.
 */
export interface WindowCounters {
  /** Adds each delta, then returns each key's total over its window, in order. One round trip for all. */
  add(entries: readonly WindowCount[]): Promise<number[]>;
}

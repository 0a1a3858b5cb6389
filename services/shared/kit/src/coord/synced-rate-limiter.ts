import type { Logger } from '../logger.ts';
import type { RateLimitAllResult, RateLimitHit, WindowCounters } from './types.ts';
import { checkedHits, WINDOW_BUCKETS } from './validate.ts';

export interface SyncedRateLimiterOptions {
  /** How often the local counts are handed to the shared counters and the totals read back. Default 250 ms. */
  syncMs?: number;
  /** Keys held locally at most; past it, the tenth seen longest ago is handed over and forgotten. Default 100,000. */
  maxKeys?: number;
  logger?: Logger;
}

interface Entry {
  limit: number;
  windowMs: number;
  /** Every replica's hits in the window as of the last sync (this one's handed-over hits included). */
  shared: number;
  /** This replica's hits not handed over yet. */
  pending: number;
  /** Whether a sync has answered (or failed) for this key since it was created here. */
  known: boolean;
  lastSeen: number;
}

/** Keys handed over in one WindowCounters call. */
const SYNC_BATCH = 500;

/**
 * Rate limits for the hot path, counted locally and shared in batches (Kong's `sync_rate`,
 * Envoy's local limits in front of a global one): each replica decides from its own count
 * plus the shared total it last read, and hands its hits to the shared WindowCounters every
 * `syncMs` instead of asking on every request.
 *
 * What that costs in precision: the window slides a tenth at a time (WindowCounters), and
 * replicas see each other's hits up to `syncMs` late, so N replicas under a flood may together
 * let through, beyond the limit, what N-1 of them admit in one sync period. One replica alone
 * counts exactly. The first hit on a key this replica does not hold waits for a sync, so a
 * client that moves to another replica finds its count there. While the shared counters are
 * unreachable each replica goes on limiting by what it knows and hands its hits over later.
 *
 * Limits that must be exact across replicas (sign-in attempts, AI requests) use the
 * coordination's RateLimiter.
 */
export class SyncedRateLimiter {
  readonly #counters: WindowCounters;
  readonly #maxKeys: number;
  readonly #logger: Logger | undefined;
  readonly #entries = new Map<string, Entry>();
  readonly #timer: NodeJS.Timeout;
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #lastFailureLog = 0;
  #closed = false;

  constructor(counters: WindowCounters, opts: SyncedRateLimiterOptions = {}) {
    this.#counters = counters;
    this.#maxKeys = opts.maxKeys ?? 100_000;
    this.#logger = opts.logger;
    this.#timer = setInterval(() => void this.sync(), opts.syncMs ?? 250);
    this.#timer.unref();
  }

  /**
   * RateLimiter.hitAll's contract: allowed when every key allows one more hit, and then counted
   * against all of them; refused (counted against none) with the longest wait otherwise.
   */
  async hitAll(requested: readonly RateLimitHit[]): Promise<RateLimitAllResult> {
    const hits = checkedHits(requested);
    const now = Date.now();
    let unknown = false;
    const entries = hits.map((h) => {
      let e = this.#entries.get(h.key);
      if (!e) {
        if (this.#entries.size >= this.#maxKeys) this.#evictOldest();
        e = { limit: h.limit, windowMs: h.windowMs, shared: 0, pending: 0, known: false, lastSeen: now };
        this.#entries.set(h.key, e);
      }
      e.limit = h.limit;
      e.windowMs = h.windowMs;
      e.lastSeen = now;
      if (!e.known) unknown = true;
      return e;
    });
    if (unknown) await this.sync();

    let remaining = Infinity;
    let wait = 0;
    let refusedKey: string | null = null;
    entries.forEach((e, i) => {
      const used = e.shared + e.pending;
      if (used < e.limit) {
        remaining = Math.min(remaining, e.limit - used - 1);
        return;
      }
      // The oldest bucket leaves the window at the next bucket boundary.
      const bucketMs = Math.ceil(e.windowMs / WINDOW_BUCKETS);
      wait = Math.max(wait, bucketMs - (Date.now() % bucketMs));
      refusedKey ??= hits[i]!.key;
    });
    if (refusedKey !== null)
      return { allowed: false, remaining: 0, retryAfterMs: Math.max(1, wait), refusedKey };
    for (const e of entries) e.pending++;
    return { allowed: true, remaining, retryAfterMs: 0, refusedKey: null };
  }

  /** Takes back hits that hitAll counted (for a request refused by a limit checked after it). */
  release(requested: readonly RateLimitHit[]): void {
    for (const h of requested) {
      const e = this.#entries.get(h.key);
      if (e && e.pending > 0) e.pending--;
    }
  }

  /**
   * Hands every pending hit over and reads the totals of every key seen within its window.
   * Calls made while one runs share the next run.
   */
  sync(): Promise<void> {
    if (this.#queued) return this.#queued;
    const start = (): Promise<void> => {
      this.#queued = undefined;
      const run = this.#flush().finally(() => {
        if (this.#running === run) this.#running = undefined;
      });
      this.#running = run;
      return run;
    };
    this.#queued = (this.#running ?? Promise.resolve()).then(start, start);
    return this.#queued;
  }

  /** Stops syncing after handing over what is pending. */
  async close(): Promise<void> {
    if (this.#closed) return;
    clearInterval(this.#timer);
    await this.sync();
    this.#closed = true;
  }

  /** Keys held now. */
  get size(): number {
    return this.#entries.size;
  }

  async #flush(): Promise<void> {
    if (this.#closed) return;
    const now = Date.now();
    const batch: [string, Entry, number][] = [];
    for (const [key, e] of this.#entries) {
      if (e.pending === 0 && e.known && now - e.lastSeen > e.windowMs) {
        this.#entries.delete(key);
        continue;
      }
      batch.push([key, e, e.pending]);
    }
    for (let i = 0; i < batch.length; i += SYNC_BATCH) {
      const part = batch.slice(i, i + SYNC_BATCH);
      try {
        const totals = await this.#counters.add(
          part.map(([key, e, delta]) => ({ key, windowMs: e.windowMs, delta })),
        );
        part.forEach(([, e, delta], j) => {
          // Hits counted while the call was out stay pending for the next sync.
          e.pending = Math.max(0, e.pending - delta);
          e.shared = totals[j]!;
          e.known = true;
        });
      } catch (err) {
        for (const [, e] of part) e.known = true;
        if (now - this.#lastFailureLog > 10_000) {
          this.#lastFailureLog = now;
          this.#logger?.warn({ err }, "rate limit counts not shared; limiting by this replica's own counts");
        }
      }
    }
  }

  /** Forgets the tenth of the keys seen longest ago, handing their pending hits over first. */
  #evictOldest(): void {
    const oldest = [...this.#entries.entries()]
      .sort((a, b) => a[1].lastSeen - b[1].lastSeen)
      .slice(0, Math.max(1, Math.ceil(this.#maxKeys / 10)));
    for (const [key] of oldest) this.#entries.delete(key);
    const handOver = oldest.filter(([, e]) => e.pending > 0);
    if (handOver.length > 0) {
      this.#counters
        .add(handOver.map(([key, e]) => ({ key, windowMs: e.windowMs, delta: e.pending })))
        .catch(() => undefined);
    }
  }
}

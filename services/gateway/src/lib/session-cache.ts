import type { VerifySessionResult } from '@chronicler/contracts';
import { hash } from 'node:crypto';

type Valid = Extract<VerifySessionResult, { valid: true }>;

interface Entry {
  result: Valid;
  /** Past this the entry is not used (Date.now() ms). */
  until: number;
  /** From this on a use also checks the session again in the background; Infinity: never. */
  refreshAt: number;
}

export interface SessionCacheOptions {
  maxEntries?: number;
  /**
   * The share of the TTL, at its end, in which a use refreshes the entry in the background
   * (the cached answer still serves meanwhile). Default 0.25.
   */
  refreshShare?: number;
  /** Random spread of each entry's TTL, as a share of it, so entries made together end apart. Default 0.1. */
  jitter?: number;
  now?: () => number;
  random?: () => number;
}

/** Asks the auth service about a token: the valid answer, or null. */
export type SessionLoader = () => Promise<Valid | null>;

/** Evictions are remembered this long, so a check that was in flight during one cannot undo it. */
const EVICTION_MEMORY_MS = 120_000;

/**
 * Recent session checks of this gateway process, keyed by a hash of the token (the
 * token itself is a credential and stays out of memory dumps of the map). Entries end at
 * the earliest of their TTL, the token's expiry and the session's end, and are dropped
 * by session id when the auth service announces a revocation.
 *
 * Under load every connection presents the same few tokens, so two things keep the auth
 * service out of the request path (issue 16 saw all connections miss together every TTL):
 * - single flight: concurrent checks of one token share one call;
 * - refresh ahead: in the last `refreshShare` of an entry's TTL a use answers from the cache
 *   and checks the session again in the background, so a token in use never misses; each
 *   TTL is spread by `jitter` so that entries made at once do not end at once either.
 *
 * An entry past its TTL is kept, unused, until its token expires: when the check that would
 * replace it fails (the auth service or its database unreachable, not a "no longer valid"
 * answer), that last valid answer stands in, so an outage of PostgreSQL does not sign out
 * everyone whose check happens to end during it. A revocation still drops it at once, and it
 * never outlives its token.
 */
export class SessionCache {
  private readonly byKey = new Map<string, Entry>();
  private readonly keysBySession = new Map<string, Set<string>>();
  private readonly inFlight = new Map<string, Promise<Valid | null>>();
  /** Session id -> when it was last evicted. */
  private readonly evictedAt = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly refreshShare: number;
  private readonly jitter: number;
  private readonly now: () => number;
  private readonly random: () => number;

  constructor(
    private readonly ttlMs: number,
    opts: SessionCacheOptions = {},
  ) {
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.refreshShare = opts.refreshShare ?? 0.25;
    this.jitter = opts.jitter ?? 0.1;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
  }

  /** The cached check of `token`, if any and not past its TTL (never a call). */
  get(token: string): Valid | undefined {
    return this.entry(keyOf(token))?.result;
  }

  /**
   * The check of `token`: from the cache when there (refreshed in the background near its
   * end), else from `load`, shared with any check of the same token already in flight.
   * `kind` separates checks that may answer differently for one token (renewing or not).
   * A valid answer is cached under its reissued token when there is one.
   */
  async check(token: string, load: SessionLoader, kind = ''): Promise<Valid | null> {
    const key = keyOf(token);
    const entry = this.entry(key);
    if (entry) {
      if (this.now() >= entry.refreshAt) {
        // At most one refresh per entry: a failed one waits for the entry to end.
        entry.refreshAt = Infinity;
        this.flight(key, token, load, kind).catch(() => undefined);
      }
      return entry.result;
    }
    return this.flight(key, token, load, kind);
  }

  set(token: string, result: Valid): void {
    if (this.ttlMs <= 0) return;
    const now = this.now();
    const ttl = this.ttlMs * (1 - this.jitter * this.random());
    const byTtl = now + ttl;
    const until = Math.min(byTtl, result.valid_until);
    if (until <= now) return;
    const key = keyOf(token);
    if (!this.byKey.has(key) && this.byKey.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.byKey.entries().next().value;
      if (oldest) this.remove(oldest[0], oldest[1].result.session_id);
    }
    // An entry that ends with its token gains nothing from a refresh: the same token's answer
    // cannot outlive it (the renewal, a new token, is cached under that one).
    const refreshAt = byTtl <= result.valid_until ? now + ttl * (1 - this.refreshShare) : Infinity;
    this.byKey.delete(key);
    this.byKey.set(key, { result, until, refreshAt });
    let keys = this.keysBySession.get(result.session_id);
    if (!keys) this.keysBySession.set(result.session_id, (keys = new Set()));
    keys.add(key);
  }

  evictSession(sessionId: string): void {
    for (const key of this.keysBySession.get(sessionId) ?? []) this.byKey.delete(key);
    this.keysBySession.delete(sessionId);
    const now = this.now();
    this.evictedAt.set(sessionId, now);
    if (this.evictedAt.size > 1_000) {
      for (const [id, at] of this.evictedAt) if (at < now - EVICTION_MEMORY_MS) this.evictedAt.delete(id);
    }
  }

  /** The entry of `key` within its TTL; one past it stays (see stale) until its token expires. */
  private entry(key: string): Entry | undefined {
    const entry = this.byKey.get(key);
    if (!entry) return undefined;
    const now = this.now();
    if (entry.until <= now) {
      if (entry.result.valid_until <= now) this.remove(key, entry.result.session_id);
      return undefined;
    }
    return entry;
  }

  /** The last valid answer for `key` past its TTL, while its token is valid. */
  private stale(key: string): Valid | undefined {
    const entry = this.byKey.get(key);
    return entry && entry.result.valid_until > this.now() ? entry.result : undefined;
  }

  private flight(key: string, token: string, load: SessionLoader, kind: string): Promise<Valid | null> {
    const flightKey = `${kind}:${key}`;
    const running = this.inFlight.get(flightKey);
    if (running) return running;
    const startedAt = this.now();
    const p = load()
      .then((result) => {
        if (!result) {
          // No longer valid (revoked, ended): a refresh drops what the cache still held.
          const held = this.byKey.get(key);
          if (held) this.remove(key, held.result.session_id);
          return null;
        }
        // A revocation announced while the call was in flight wins over its answer.
        if ((this.evictedAt.get(result.session_id) ?? -Infinity) >= startedAt) return null;
        this.set(token, result);
        return result;
      })
      .catch((err: unknown) => {
        // The check could not be made (no verdict): the last valid answer, when there is one.
        const held = this.stale(key);
        if (held) return held;
        throw err;
      })
      .finally(() => this.inFlight.delete(flightKey));
    this.inFlight.set(flightKey, p);
    return p;
  }

  private remove(key: string, sessionId: string): void {
    this.byKey.delete(key);
    const keys = this.keysBySession.get(sessionId);
    keys?.delete(key);
    if (keys && keys.size === 0) this.keysBySession.delete(sessionId);
  }
}

let lastToken = '';
let lastKey = '';
/**
 * The map key of a token. A request's token is hashed twice in a row (the rate-limit
 * plugin's sessionKnown, then the check), so the last one is remembered; one-shot hash()
 * spares a Hash object per call.
 */
function keyOf(token: string): string {
  if (token !== lastToken) {
    lastKey = hash('sha256', token, 'base64url');
    lastToken = token;
  }
  return lastKey;
}

import type { VerifySessionResult } from '@chronicler/contracts';
import { createHash } from 'node:crypto';

type Valid = Extract<VerifySessionResult, { valid: true }>;

interface Entry {
  result: Valid;
  until: number;
}

/**
 * Recent session checks of this gateway process, keyed by a hash of the token (the
 * token itself is a credential and stays out of memory dumps of the map). Entries end at
 * the earliest of their TTL, the token's expiry and the session's end, and are dropped
 * by session id when the auth service announces a revocation.
 */
export class SessionCache {
  private readonly byKey = new Map<string, Entry>();
  private readonly keysBySession = new Map<string, Set<string>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(token: string): Valid | undefined {
    const key = keyOf(token);
    const entry = this.byKey.get(key);
    if (!entry) return undefined;
    if (entry.until <= Date.now()) {
      this.remove(key, entry.result.session_id);
      return undefined;
    }
    return entry.result;
  }

  set(token: string, result: Valid): void {
    if (this.ttlMs <= 0) return;
    const until = Math.min(Date.now() + this.ttlMs, result.valid_until);
    if (until <= Date.now()) return;
    if (this.byKey.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.byKey.entries().next().value;
      if (oldest) this.remove(oldest[0], oldest[1].result.session_id);
    }
    const key = keyOf(token);
    this.byKey.set(key, { result, until });
    let keys = this.keysBySession.get(result.session_id);
    if (!keys) this.keysBySession.set(result.session_id, (keys = new Set()));
    keys.add(key);
  }

  evictSession(sessionId: string): void {
    for (const key of this.keysBySession.get(sessionId) ?? []) this.byKey.delete(key);
    this.keysBySession.delete(sessionId);
  }

  private remove(key: string, sessionId: string): void {
    this.byKey.delete(key);
    const keys = this.keysBySession.get(sessionId);
    keys?.delete(key);
    if (keys && keys.size === 0) this.keysBySession.delete(sessionId);
  }
}

const keyOf = (token: string): string => createHash('sha256').update(token).digest('base64url');

import type { VerifySessionResult } from '@chronicler/contracts';
import { describe, expect, it } from 'vitest';
import { SessionCache } from './session-cache.ts';

type Valid = Extract<VerifySessionResult, { valid: true }>;

const TTL = 30_000;

function valid(sessionId = 's1', validUntil = 10 * TTL): Valid {
  return {
    valid: true,
    user: { id: 'u1', username: 'u1', avatar: null, discord_id: null, is_admin: false },
    session_id: sessionId,
    valid_until: validUntil,
    session_expires_at: new Date(validUntil).toISOString(),
  };
}

/** A cache on a clock the test moves, with no jitter unless asked, and a loader that counts its calls. */
function setup(opts: { jitter?: number; random?: () => number } = {}) {
  let now = 0;
  const cache = new SessionCache(TTL, { now: () => now, jitter: opts.jitter ?? 0, random: opts.random });
  const calls: ((r: Valid | null) => void)[] = [];
  let answer: Valid | null = valid();
  const load = () =>
    new Promise<Valid | null>((resolve) => {
      calls.push(resolve);
    });
  const answerAll = () => {
    for (const resolve of calls.splice(0)) resolve(answer);
  };
  return {
    cache,
    calls,
    load,
    answerAll,
    setAnswer: (a: Valid | null) => (answer = a),
    advance: (ms: number) => (now += ms),
  };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('session cache', () => {
  it('shares one check among concurrent requests with the same token', async () => {
    const { cache, calls, load, answerAll } = setup();
    const checks = Array.from({ length: 50 }, () => cache.check('tok', load));
    expect(calls).toHaveLength(1);
    answerAll();
    const results = await Promise.all(checks);
    expect(results.every((r) => r?.session_id === 's1')).toBe(true);
    // Cached now: no further call.
    await cache.check('tok', load);
    expect(calls).toHaveLength(0);
  });

  it('keeps renewing and plain checks of one token apart', async () => {
    const { cache, calls, load, answerAll } = setup();
    const a = cache.check('tok', load, 'renew');
    const b = cache.check('tok', load, '');
    expect(calls).toHaveLength(2);
    answerAll();
    await Promise.all([a, b]);
  });

  it('refreshes an entry in use in the background before it ends, so no request waits', async () => {
    const { cache, calls, load, answerAll, advance } = setup();
    const first = cache.check('tok', load);
    answerAll();
    await first;
    // Before the refresh window: from the cache, no call.
    advance(TTL * 0.7);
    await cache.check('tok', load);
    expect(calls).toHaveLength(0);
    // In the last quarter: answered from the cache at once, one refresh started for all.
    advance(TTL * 0.1);
    const during = await Promise.all([cache.check('tok', load), cache.check('tok', load)]);
    expect(during.every((r) => r?.session_id === 's1')).toBe(true);
    expect(calls).toHaveLength(1);
    answerAll();
    await settle();
    // Past the first entry's end: the refreshed one serves, without a call.
    advance(TTL * 0.3);
    expect(await cache.check('tok', load)).toMatchObject({ session_id: 's1' });
    expect(calls).toHaveLength(0);
  });

  it('drops the entry when a background refresh finds the session no longer valid', async () => {
    const { cache, calls, load, answerAll, advance, setAnswer } = setup();
    const first = cache.check('tok', load);
    answerAll();
    await first;
    advance(TTL * 0.8);
    await cache.check('tok', load);
    setAnswer(null);
    answerAll();
    await settle();
    expect(cache.get('tok')).toBeUndefined();
    const again = cache.check('tok', load);
    expect(calls).toHaveLength(1);
    answerAll();
    expect(await again).toBeNull();
  });

  it('does not refresh an entry that ends with its token, and never serves it past that', async () => {
    const { cache, calls, load, answerAll, advance, setAnswer } = setup();
    setAnswer(valid('s1', TTL / 2));
    const first = cache.check('tok', load);
    answerAll();
    await first;
    advance(TTL / 2 - 1);
    await cache.check('tok', load);
    expect(calls).toHaveLength(0);
    advance(1);
    void cache.check('tok', load);
    expect(calls).toHaveLength(1);
  });

  it('lets a revocation announced while a check is in flight win over its answer', async () => {
    const { cache, load, answerAll, advance } = setup();
    const pending = cache.check('tok', load);
    advance(5);
    cache.evictSession('s1');
    answerAll();
    expect(await pending).toBeNull();
    expect(cache.get('tok')).toBeUndefined();
  });

  it('answers with the last valid check past its TTL when the check cannot be made, until its token expires', async () => {
    const { cache, load, answerAll, advance } = setup();
    const unreachable = () => Promise.reject(new Error('The database is unavailable'));
    const first = cache.check('tok', load);
    answerAll();
    await first;
    advance(TTL);
    // Past its TTL the entry is not used as such...
    expect(cache.get('tok')).toBeUndefined();
    // ...but stands in while the auth service cannot answer.
    expect((await cache.check('tok', unreachable))?.session_id).toBe('s1');
    // A verdict replaces it as before.
    const again = cache.check('tok', load);
    answerAll();
    expect((await again)?.session_id).toBe('s1');
    expect(cache.get('tok')?.session_id).toBe('s1');
    // Never past the token's own end.
    advance(10 * TTL);
    await expect(cache.check('tok', unreachable)).rejects.toThrow('unavailable');
  });

  it('serves no stale check of a revoked session, and none after a "no longer valid" answer', async () => {
    const { cache, load, answerAll, advance, setAnswer } = setup();
    const unreachable = () => Promise.reject(new Error('The database is unavailable'));
    for (const tok of ['a', 'b']) {
      const p = cache.check(tok, load);
      answerAll();
      await p;
    }
    advance(TTL);
    cache.evictSession('s1');
    await expect(cache.check('a', unreachable)).rejects.toThrow('unavailable');
    setAnswer(valid('s2'));
    const other = cache.check('c', load);
    answerAll();
    await other;
    advance(TTL);
    setAnswer(null);
    const ended = cache.check('c', load);
    answerAll();
    expect(await ended).toBeNull();
    await expect(cache.check('c', unreachable)).rejects.toThrow('unavailable');
  });

  it('spreads the end of entries made at the same moment', async () => {
    let i = 0;
    const randoms = [0, 0.99];
    const { cache, load, answerAll, advance } = setup({ jitter: 0.1, random: () => randoms[i++ % 2]! });
    const made = [cache.check('a', load), cache.check('b', load)];
    answerAll();
    await Promise.all(made);
    // 'b' got a TTL 9.9% shorter than 'a': gone while 'a' still serves.
    advance(TTL * 0.95);
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('b')).toBeUndefined();
  });
});

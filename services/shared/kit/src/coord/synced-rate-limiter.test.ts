import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { uniquePrefix } from '../testing/coord-contract/index.ts';
import { createCoordination, MemoryCoordination } from './index.ts';
import { SyncedRateLimiter } from './synced-rate-limiter.ts';
import type { WindowCount, WindowCounters } from './types.ts';

const REDIS_URL = process.env.REDIS_URL;

/** Counters that record every call, fail on demand, and otherwise pass through. */
class Spy implements WindowCounters {
  calls: WindowCount[][] = [];
  failing = false;
  constructor(private readonly inner: WindowCounters) {}
  async add(entries: readonly WindowCount[]): Promise<number[]> {
    this.calls.push(entries.map((e) => ({ ...e })));
    if (this.failing) throw new Error('counters unreachable');
    return this.inner.add(entries);
  }
}

const hits = (limit: number, ...keys: string[]) => keys.map((key) => ({ key, limit, windowMs: 60_000 }));

describe('SyncedRateLimiter', () => {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });
  const counters = (): Spy => {
    const coord = new MemoryCoordination();
    closing.push(() => coord.close());
    return new Spy(coord.windowCounters);
  };
  const limiter = (store: WindowCounters, opts: { syncMs?: number; maxKeys?: number } = {}) => {
    const l = new SyncedRateLimiter(store, { syncMs: 100_000, ...opts });
    closing.push(() => l.close());
    return l;
  };

  it('alone: allows exactly the limit with no round trip after the first, then refuses with a wait', async () => {
    const spy = counters();
    const l = limiter(spy);
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await l.hitAll(hits(5, 'ip:1')));
    expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 4],
      [true, 3],
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(results[5]!.refusedKey).toBe('ip:1');
    expect(results[5]!.retryAfterMs).toBeGreaterThan(0);
    expect(results[5]!.retryAfterMs).toBeLessThanOrEqual(6_000);
    // The first hit on the key waited for one sync; the rest were decided here.
    expect(spy.calls).toEqual([[{ key: 'ip:1', windowMs: 60_000, delta: 0 }]]);
    await l.sync();
    expect(spy.calls[1]).toEqual([{ key: 'ip:1', windowMs: 60_000, delta: 5 }]);
  });

  it('counts a hit against every key or none', async () => {
    const l = limiter(counters());
    expect((await l.hitAll(hits(1, 'user:1'))).allowed).toBe(true);
    const refused = await l.hitAll([...hits(5, 'ip:1'), ...hits(1, 'user:1')]);
    expect(refused).toMatchObject({ allowed: false, refusedKey: 'user:1' });
    // ip:1 was not counted by the refused hit: all five fit.
    for (let i = 0; i < 5; i++) expect((await l.hitAll(hits(5, 'ip:1'))).allowed).toBe(true);
    expect((await l.hitAll(hits(5, 'ip:1'))).allowed).toBe(false);
  });

  it('release takes a counted hit back', async () => {
    const l = limiter(counters());
    expect((await l.hitAll(hits(1, 'k'))).allowed).toBe(true);
    l.release(hits(1, 'k'));
    expect((await l.hitAll(hits(1, 'k'))).allowed).toBe(true);
    expect((await l.hitAll(hits(1, 'k'))).allowed).toBe(false);
  });

  it('goes on limiting by its own counts while the store is unreachable, and hands them over later', async () => {
    const spy = counters();
    const l = limiter(spy);
    spy.failing = true;
    for (let i = 0; i < 3; i++) expect((await l.hitAll(hits(3, 'k'))).allowed).toBe(true);
    expect((await l.hitAll(hits(3, 'k'))).allowed).toBe(false);
    spy.failing = false;
    await l.sync();
    expect(spy.calls.at(-1)).toEqual([{ key: 'k', windowMs: 60_000, delta: 3 }]);
  });

  it('holds at most maxKeys, handing the hits of the keys it forgets over', async () => {
    const spy = counters();
    const l = limiter(spy, { maxKeys: 10 });
    for (let i = 0; i < 25; i++) await l.hitAll(hits(5, `ip:${i}`));
    expect(l.size).toBeLessThanOrEqual(10);
    await l.sync();
    // Every hit reached the shared counters, the forgotten keys' too.
    const total = (
      await spy.add(Array.from({ length: 25 }, (_, i) => ({ key: `ip:${i}`, windowMs: 60_000, delta: 0 })))
    ).reduce((a, b) => a + b, 0);
    expect(total).toBe(25);
  });
});

if (REDIS_URL) {
  describe('SyncedRateLimiter: gateways sharing Redis', () => {
    const closing: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const close of closing.splice(0).reverse()) await close();
    });
    const replicas = async (n: number, syncMs: number): Promise<SyncedRateLimiter[]> => {
      const prefix = uniquePrefix();
      return Promise.all(
        Array.from({ length: n }, async () => {
          const coord = await createCoordination({ redisUrl: REDIS_URL, prefix });
          const l = new SyncedRateLimiter(coord.windowCounters, { syncMs });
          closing.push(
            () => coord.close(),
            () => l.close(),
          );
          return l;
        }),
      );
    };

    it('a client moving to another gateway finds its count there', async () => {
      const [a, b] = await replicas(2, 100_000);
      for (let i = 0; i < 4; i++) expect((await a!.hitAll(hits(5, 'user:1'))).allowed).toBe(true);
      await a!.sync();
      // b has never seen the key: its first hit reads the shared count.
      expect(await b!.hitAll(hits(5, 'user:1'))).toMatchObject({ allowed: true, remaining: 0 });
      expect((await b!.hitAll(hits(5, 'user:1'))).allowed).toBe(false);
    });

    it('three gateways under a flood admit the limit and at most a sync period of the others beyond it', async () => {
      const gateways = await replicas(3, 50);
      const limit = 60;
      // Every gateway has read the (empty) count before the flood.
      await Promise.all(gateways.map((g) => g.hitAll(hits(limit, 'warm'))));
      let allowed = 0;
      let tries = 0;
      const until = Date.now() + 1_000;
      await Promise.all(
        gateways.map(async (g) => {
          while (Date.now() < until) {
            tries++;
            if ((await g.hitAll(hits(limit, 'ip:flood'))).allowed) allowed++;
            await sleep(2);
          }
        }),
      );
      expect(tries).toBeGreaterThan(3 * limit);
      expect(allowed).toBeGreaterThanOrEqual(limit);
      // A sync period is 50 ms: about 25 tries of each gateway at most.
      expect(allowed).toBeLessThanOrEqual(limit + 2 * 30);
      // Once the counts are shared, every gateway refuses.
      await sleep(150);
      for (const g of gateways) expect((await g.hitAll(hits(limit, 'ip:flood'))).allowed).toBe(false);
    });
  });
}

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Coordination, Lock } from '../../coord/types.ts';
import { waitFor } from './support.ts';

/** Locks and the cache, as every Coordination keeps them. */
export function locksAndCacheContract(open: () => Promise<Coordination>): void {
  describe('locks', () => {
    it('gives the key to one holder at a time, with a fresh token per acquisition', async () => {
      const { locks } = await open();
      const first = await locks.acquire('summary:t1', 5_000);
      expect(first).not.toBeNull();
      expect(first?.key).toBe('summary:t1');
      expect(await locks.acquire('summary:t1', 5_000)).toBeNull();

      expect(await first!.release()).toBe(true);
      const second = await locks.acquire('summary:t1', 5_000);
      expect(second).not.toBeNull();
      expect(second!.token).not.toBe(first!.token);
      expect(second!.token.length).toBeGreaterThanOrEqual(16);
    });

    it('lets only the holder release, once', async () => {
      const { locks } = await open();
      const lock = await locks.acquire('k', 5_000);
      expect(await lock!.release()).toBe(true);
      expect(await lock!.release()).toBe(false);
      const next = await locks.acquire('k', 5_000);
      expect(next).not.toBeNull();
      // The first holder's second release must not free the new holder's lock.
      expect(await lock!.release()).toBe(false);
      expect(await locks.acquire('k', 5_000)).toBeNull();
    });

    it('keeps different keys independent', async () => {
      const { locks } = await open();
      expect(await locks.acquire('a', 5_000)).not.toBeNull();
      expect(await locks.acquire('b', 5_000)).not.toBeNull();
      expect(await locks.acquire('a', 5_000)).toBeNull();
    });

    it('expires after its ttl so the key can be taken again', async () => {
      const { locks } = await open();
      const started = performance.now();
      expect(await locks.acquire('k', 150)).not.toBeNull();
      expect(await locks.acquire('k', 150)).toBeNull();

      let next: Lock | null = null;
      await waitFor('the lock to expire', async () => (next = await locks.acquire('k', 5_000)) !== null);
      // Millisecond rounding between the two clocks is the only slack allowed.
      expect(performance.now() - started).toBeGreaterThanOrEqual(145);
      expect(next).not.toBeNull();
    });

    it('does not let a stale lock release or extend the next holder’s lock', async () => {
      const { locks } = await open();
      const stale = await locks.acquire('k', 150);
      expect(stale).not.toBeNull();
      let current: Lock | null = null;
      await waitFor('the lock to expire', async () => (current = await locks.acquire('k', 5_000)) !== null);

      expect(await stale!.release()).toBe(false);
      expect(await stale!.extend(5_000)).toBe(false);
      expect(await locks.acquire('k', 5_000)).toBeNull();
      expect(await current!.release()).toBe(true);
    });

    it('extend keeps the lock past its original ttl', async () => {
      const { locks } = await open();
      const lock = await locks.acquire('k', 150);
      expect(await lock!.extend(5_000)).toBe(true);
      // Nothing signals "did not expire": wait twice the original ttl, then look.
      await sleep(300);
      expect(await locks.acquire('k', 5_000)).toBeNull();
      expect(await lock!.release()).toBe(true);
    });

    it('gives the lock to exactly one of 20 concurrent acquirers', async () => {
      const { locks } = await open();
      const results = await Promise.all(Array.from({ length: 20 }, () => locks.acquire('contended', 5_000)));
      expect(results.filter((lock) => lock !== null)).toHaveLength(1);
    });

    it('rejects a ttl that is not a positive number', async () => {
      const { locks } = await open();
      await expect(locks.acquire('k', 0)).rejects.toThrow(RangeError);
      await expect(locks.acquire('k', Number.NaN)).rejects.toThrow(RangeError);
    });
  });

  describe('cache', () => {
    it('sets, gets and deletes', async () => {
      const { cache } = await open();
      expect(await cache.get('missing')).toBeUndefined();
      await cache.set('k', { n: 1 }, 5_000);
      expect(await cache.get('k')).toEqual({ n: 1 });
      await cache.set('k', { n: 2 }, 5_000);
      expect(await cache.get('k')).toEqual({ n: 2 });
      await cache.del('k');
      expect(await cache.get('k')).toBeUndefined();
      await expect(cache.del('k')).resolves.toBeUndefined();
    });

    it('round-trips values as JSON: copies, with Dates as ISO strings', async () => {
      const { cache } = await open();
      const value = {
        name: 'Sitzung 3 — “Drachenhort” 🐉',
        count: 3,
        ratio: 0.25,
        ok: true,
        none: null,
        tags: ['a', 'b'],
        nested: { deep: [{ x: 1 }] },
        at: new Date('2026-01-02T03:04:05.000Z'),
        dropped: undefined,
      };
      await cache.set('obj', value, 5_000);
      value.tags.push('mutated after set');

      expect(await cache.get('obj')).toEqual({
        name: 'Sitzung 3 — “Drachenhort” 🐉',
        count: 3,
        ratio: 0.25,
        ok: true,
        none: null,
        tags: ['a', 'b'],
        nested: { deep: [{ x: 1 }] },
        at: '2026-01-02T03:04:05.000Z',
      });
      await cache.set('null', null, 5_000);
      expect(await cache.get('null')).toBeNull();
      await cache.set('str', 'plain', 5_000);
      expect(await cache.get('str')).toBe('plain');
      await cache.set('zero', 0, 5_000);
      expect(await cache.get('zero')).toBe(0);
    });

    it('refuses a value JSON cannot represent', async () => {
      const { cache } = await open();
      await expect(cache.set('k', undefined, 5_000)).rejects.toThrow(TypeError);
      await expect(cache.set('k', () => 1, 5_000)).rejects.toThrow(TypeError);
      expect(await cache.get('k')).toBeUndefined();
    });

    it('forgets an entry after its ttl', async () => {
      const { cache } = await open();
      const started = performance.now();
      await cache.set('k', 'v', 150);
      expect(await cache.get('k')).toBe('v');
      await waitFor('the entry to expire', async () => (await cache.get('k')) === undefined);
      expect(performance.now() - started).toBeGreaterThanOrEqual(145);
    });

    it('a second set replaces the ttl as well as the value', async () => {
      const { cache } = await open();
      await cache.set('k', 'short', 150);
      await cache.set('k', 'long', 5_000);
      await sleep(300);
      expect(await cache.get('k')).toBe('long');
    });
  });
}

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Coordination } from '../../coord/types.ts';
import { waitFor } from './support.ts';

/** Rate limits, semaphores and window counters, as every Coordination counts them. */
export function limitsContract(open: () => Promise<Coordination>): void {
  describe('rate limiter', () => {
    it('allows exactly `limit` hits in the window, then refuses with a wait within the window', async () => {
      const { rateLimiter } = await open();
      const allowed = [];
      for (let i = 0; i < 3; i++) allowed.push(await rateLimiter.hit('user:1', 3, 2_000));
      expect(allowed.map((r) => [r.allowed, r.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
      ]);

      const refused = await rateLimiter.hit('user:1', 3, 2_000);
      expect(refused.allowed).toBe(false);
      expect(refused.remaining).toBe(0);
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(2_000);
    });

    it('slides: the oldest hit leaving frees one slot, not the whole window', async () => {
      const { rateLimiter } = await open();
      expect((await rateLimiter.hit('k', 2, 600)).allowed).toBe(true);
      await sleep(300);
      expect((await rateLimiter.hit('k', 2, 600)).allowed).toBe(true);

      const refused = await rateLimiter.hit('k', 2, 600);
      expect(refused.allowed).toBe(false);
      // Counted from the first hit, 300 ms or more ago, not from the second.
      expect(refused.retryAfterMs).toBeLessThanOrEqual(305);

      await sleep(refused.retryAfterMs + 5);
      expect((await rateLimiter.hit('k', 2, 600)).allowed).toBe(true);
      // The second hit is still inside the window (for about another 300 ms).
      const again = await rateLimiter.hit('k', 2, 600);
      expect(again.allowed).toBe(false);
      expect(again.retryAfterMs).toBeGreaterThan(0);
    });

    it('does not count refused hits', async () => {
      const { rateLimiter } = await open();
      expect((await rateLimiter.hit('k', 1, 300)).allowed).toBe(true);
      await sleep(150);
      let last = await rateLimiter.hit('k', 1, 300);
      for (let i = 0; i < 5; i++) {
        last = await rateLimiter.hit('k', 1, 300);
        expect(last.allowed).toBe(false);
      }
      // Retrying halfway through the window must not push the wait out: had the refused
      // hits been recorded, they would fill the window for another 150 ms.
      expect(last.retryAfterMs).toBeLessThanOrEqual(155);
      await sleep(last.retryAfterMs + 5);
      expect((await rateLimiter.hit('k', 1, 300)).allowed).toBe(true);
    });

    it('keeps keys independent', async () => {
      const { rateLimiter } = await open();
      expect((await rateLimiter.hit('a', 1, 5_000)).allowed).toBe(true);
      expect((await rateLimiter.hit('a', 1, 5_000)).allowed).toBe(false);
      expect(await rateLimiter.hit('b', 1, 5_000)).toEqual({
        allowed: true,
        remaining: 0,
        retryAfterMs: 0,
      });
    });

    it('allows exactly `limit` of 50 concurrent hits', async () => {
      const { rateLimiter } = await open();
      const results = await Promise.all(
        Array.from({ length: 50 }, () => rateLimiter.hit('burst', 10, 10_000)),
      );
      const allowed = results.filter((r) => r.allowed);
      expect(allowed).toHaveLength(10);
      expect(allowed.map((r) => r.remaining).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(
        results.filter((r) => !r.allowed).every((r) => r.retryAfterMs > 0 && r.retryAfterMs <= 10_000),
      ).toBe(true);
    });

    it('rejects a limit or window that is not positive', async () => {
      const { rateLimiter } = await open();
      await expect(rateLimiter.hit('k', 0, 1_000)).rejects.toThrow(RangeError);
      await expect(rateLimiter.hit('k', 1.5, 1_000)).rejects.toThrow(RangeError);
      await expect(rateLimiter.hit('k', 1, -1)).rejects.toThrow(RangeError);
    });

    it('hitAll counts a hit against every key when all allow it, with the smallest remaining', async () => {
      const { rateLimiter } = await open();
      const both = [
        { key: 'ip:1', limit: 5, windowMs: 5_000 },
        { key: 'user:1', limit: 2, windowMs: 5_000 },
      ];
      expect(await rateLimiter.hitAll(both)).toEqual({
        allowed: true,
        remaining: 1,
        retryAfterMs: 0,
        refusedKey: null,
      });
      // Counted against each key: the single-key view agrees.
      expect((await rateLimiter.hit('ip:1', 5, 5_000)).remaining).toBe(3);
      expect((await rateLimiter.hit('user:1', 2, 5_000)).allowed).toBe(true);
      expect((await rateLimiter.hit('user:1', 2, 5_000)).allowed).toBe(false);
    });

    it('hitAll refused by one key counts against none and names that key', async () => {
      const { rateLimiter } = await open();
      expect((await rateLimiter.hit('user:2', 1, 5_000)).allowed).toBe(true);
      const refused = await rateLimiter.hitAll([
        { key: 'ip:2', limit: 2, windowMs: 5_000 },
        { key: 'user:2', limit: 1, windowMs: 5_000 },
      ]);
      expect(refused).toMatchObject({ allowed: false, remaining: 0, refusedKey: 'user:2' });
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(5_000);
      // The address was not charged for the refused request: both of its hits are left.
      expect((await rateLimiter.hit('ip:2', 2, 5_000)).remaining).toBe(1);
      expect((await rateLimiter.hit('ip:2', 2, 5_000)).remaining).toBe(0);
    });

    it('hitAll waits for the slowest refusing key and allows exactly `limit` of concurrent hits', async () => {
      const { rateLimiter } = await open();
      expect((await rateLimiter.hit('a:3', 1, 300)).allowed).toBe(true);
      expect((await rateLimiter.hit('b:3', 1, 5_000)).allowed).toBe(true);
      const refused = await rateLimiter.hitAll([
        { key: 'a:3', limit: 1, windowMs: 300 },
        { key: 'b:3', limit: 1, windowMs: 5_000 },
      ]);
      expect(refused).toMatchObject({ allowed: false, refusedKey: 'a:3' });
      expect(refused.retryAfterMs).toBeGreaterThan(300);

      const burst = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          rateLimiter.hitAll([
            { key: 'shared:3', limit: 10, windowMs: 10_000 },
            { key: `own:3:${i % 2}`, limit: 100, windowMs: 10_000 },
          ]),
        ),
      );
      expect(burst.filter((r) => r.allowed)).toHaveLength(10);
    });

    it('hitAll rejects no keys, repeated keys and bad limits', async () => {
      const { rateLimiter } = await open();
      await expect(rateLimiter.hitAll([])).rejects.toThrow(RangeError);
      await expect(
        rateLimiter.hitAll([
          { key: 'k', limit: 1, windowMs: 1_000 },
          { key: 'k', limit: 2, windowMs: 1_000 },
        ]),
      ).rejects.toThrow(RangeError);
      await expect(rateLimiter.hitAll([{ key: 'k', limit: 0, windowMs: 1_000 }])).rejects.toThrow(RangeError);
    });
  });

  describe('semaphores', () => {
    it('admits exactly `limit` leases, refuses the next, and frees a slot on release', async () => {
      const { semaphores } = await open();
      const leases = [];
      for (let i = 0; i < 3; i++) leases.push(await semaphores.acquire('stt:deepgram', 3, 5_000));
      expect(leases.every((l) => l !== null)).toBe(true);
      expect(new Set(leases.map((l) => l!.id)).size).toBe(3);
      expect(await semaphores.count('stt:deepgram')).toBe(3);
      expect(await semaphores.acquire('stt:deepgram', 3, 5_000)).toBeNull();

      expect(await leases[1]!.release()).toBe(true);
      expect(await leases[1]!.release()).toBe(false);
      expect(await semaphores.count('stt:deepgram')).toBe(2);
      const next = await semaphores.acquire('stt:deepgram', 3, 5_000);
      expect(next).not.toBeNull();
      expect(next!.key).toBe('stt:deepgram');
      expect(await semaphores.acquire('stt:deepgram', 3, 5_000)).toBeNull();
    });

    it('frees the slot of a lease nobody extends, and an expired lease cannot be extended', async () => {
      const { semaphores } = await open();
      const lease = await semaphores.acquire('k', 1, 150);
      expect(lease).not.toBeNull();
      expect(await semaphores.acquire('k', 1, 150)).toBeNull();
      await waitFor('the lease to expire', async () => (await semaphores.count('k')) === 0);
      expect(await lease!.extend(5_000)).toBe(false);
      expect(await lease!.release()).toBe(false);
      expect(await semaphores.acquire('k', 1, 5_000)).not.toBeNull();
    });

    it('keeps an extended lease past its first expiry', async () => {
      const { semaphores } = await open();
      const lease = await semaphores.acquire('k', 1, 150);
      expect(await lease!.extend(5_000)).toBe(true);
      // Nothing signals "did not expire": wait twice the original lease, then look.
      await sleep(300);
      expect(await semaphores.count('k')).toBe(1);
      expect(await semaphores.acquire('k', 1, 5_000)).toBeNull();
    });

    it('admits exactly `limit` of 30 concurrent acquirers', async () => {
      const { semaphores } = await open();
      const results = await Promise.all(
        Array.from({ length: 30 }, () => semaphores.acquire('burst', 7, 5_000)),
      );
      expect(results.filter((l) => l !== null)).toHaveLength(7);
      expect(await semaphores.count('burst')).toBe(7);
    });

    it('keeps keys independent and counts an unknown key as zero', async () => {
      const { semaphores } = await open();
      expect(await semaphores.acquire('a', 1, 5_000)).not.toBeNull();
      expect(await semaphores.acquire('b', 1, 5_000)).not.toBeNull();
      expect(await semaphores.acquire('a', 1, 5_000)).toBeNull();
      expect(await semaphores.count('never-used')).toBe(0);
    });

    it('rejects a limit or lease that is not positive', async () => {
      const { semaphores } = await open();
      await expect(semaphores.acquire('k', 0, 1_000)).rejects.toThrow(RangeError);
      await expect(semaphores.acquire('k', 2.5, 1_000)).rejects.toThrow(RangeError);
      await expect(semaphores.acquire('k', 1, 0)).rejects.toThrow(RangeError);
      const lease = await semaphores.acquire('k', 1, 1_000);
      await expect(lease!.extend(-5)).rejects.toThrow(RangeError);
    });
  });

  describe('window counters', () => {
    it('adds to each key and answers each total in order, reading with a delta of 0', async () => {
      const { windowCounters } = await open();
      expect(
        await windowCounters.add([
          { key: 'ip:1', windowMs: 60_000, delta: 3 },
          { key: 'user:1', windowMs: 60_000, delta: 1 },
        ]),
      ).toEqual([3, 1]);
      expect(
        await windowCounters.add([
          { key: 'user:1', windowMs: 60_000, delta: 2 },
          { key: 'ip:1', windowMs: 60_000, delta: 0 },
          { key: 'never-used', windowMs: 60_000, delta: 0 },
        ]),
      ).toEqual([3, 3, 0]);
      expect(await windowCounters.add([])).toEqual([]);
    });

    it('forgets hits once their bucket leaves the window', async () => {
      const { windowCounters } = await open();
      // Buckets of 40 ms: the hits leave the window 360-400 ms after they were counted.
      expect(await windowCounters.add([{ key: 'k', windowMs: 400, delta: 5 }])).toEqual([5]);
      await sleep(200);
      expect(await windowCounters.add([{ key: 'k', windowMs: 400, delta: 1 }])).toEqual([6]);
      await sleep(260);
      expect(await windowCounters.add([{ key: 'k', windowMs: 400, delta: 0 }])).toEqual([1]);
      await sleep(450);
      expect(await windowCounters.add([{ key: 'k', windowMs: 400, delta: 0 }])).toEqual([0]);
    });

    it('rejects a delta that is not a whole number of hits, or a window that is not positive', async () => {
      const { windowCounters } = await open();
      await expect(windowCounters.add([{ key: 'k', windowMs: 1_000, delta: -1 }])).rejects.toThrow(
        RangeError,
      );
      await expect(windowCounters.add([{ key: 'k', windowMs: 1_000, delta: 0.5 }])).rejects.toThrow(
        RangeError,
      );
      await expect(windowCounters.add([{ key: 'k', windowMs: 0, delta: 1 }])).rejects.toThrow(RangeError);
    });
  });
}

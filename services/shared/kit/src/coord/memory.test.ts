import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { describeCoordinationContract, waitFor } from '../testing/coord-contract/index.ts';
import { createCoordination, MemoryCoordination } from './index.ts';

describeCoordinationContract('memory', async (prefix) => {
  const coord = await createCoordination({ prefix });
  expect(coord.kind).toBe('memory');
  return coord;
});

describe('MemoryCoordination housekeeping', () => {
  it('drops expired locks, cache entries and idle rate-limit keys nobody touches again', async () => {
    const coord = new MemoryCoordination({ sweepIntervalMs: 20 });
    try {
      for (let i = 0; i < 100; i++) {
        await coord.locks.acquire(`lock:${i}`, 50);
        await coord.cache.set(`cache:${i}`, i, 50);
        await coord.rateLimiter.hit(`rate:${i}`, 5, 50);
      }
      expect(coord.stats()).toEqual({ locks: 100, rateLimitKeys: 100, cacheEntries: 100 });
      await waitFor('the sweep', async () => {
        const { locks, rateLimitKeys, cacheEntries } = coord.stats();
        return locks + rateLimitKeys + cacheEntries === 0;
      });
      // Live entries survive a sweep.
      const lock = await coord.locks.acquire('kept', 60_000);
      await coord.cache.set('kept', 'v', 60_000);
      await new Promise((r) => setTimeout(r, 60)); // a few sweeps at 20 ms
      expect(await coord.cache.get('kept')).toBe('v');
      expect(await lock!.release()).toBe(true);
    } finally {
      await coord.close();
    }
  });

  it('keeps at most `limit` timestamps per key however often it is hit', async () => {
    const coord = new MemoryCoordination();
    try {
      for (let i = 0; i < 1_000; i++) await coord.rateLimiter.hit('hammered', 3, 60_000);
      expect(coord.stats().rateLimitKeys).toBe(1);
      const result = await coord.rateLimiter.hit('hammered', 3, 60_000);
      expect(result.allowed).toBe(false);
    } finally {
      await coord.close();
    }
  });

  it('refuses to work once closed', async () => {
    const coord = new MemoryCoordination();
    await coord.close();
    expect(await coord.ping()).toBe(false);
    await expect(coord.locks.acquire('k', 1_000)).rejects.toThrow(/closed/);
    await expect(coord.cache.get('k')).rejects.toThrow(/closed/);
  });

  it('does not keep the process alive when never closed', async () => {
    const moduleUrl = new URL('./memory.ts', import.meta.url).href;
    const script = `
      const { MemoryCoordination } = await import(${JSON.stringify(moduleUrl)});
      const coord = new MemoryCoordination({ sweepIntervalMs: 10 });
      await coord.cache.set('k', 1, 60000);
      await coord.locks.acquire('k', 60000);
    `;
    const repoRoot = fileURLToPath(new URL('../../../../../', import.meta.url));
    // tsx loads the TypeScript module; the child exits by itself only if no timer holds it.
    const { stderr } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: repoRoot,
        timeout: 10_000,
      },
    );
    expect(stderr).toBe('');
  });
});

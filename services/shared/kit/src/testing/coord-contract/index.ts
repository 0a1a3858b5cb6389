import { afterEach, describe, expect, it } from 'vitest';
import type { Coordination } from '../../coord/types.ts';
import { limitsContract } from './limits.ts';
import { locksAndCacheContract } from './locks-and-cache.ts';
import { uniquePrefix } from './support.ts';

export { uniquePrefix, waitFor } from './support.ts';

/**
 * The behaviour every Coordination must have, run against each implementation. `make`
 * returns a new instance whose keys live under `prefix`; the suite closes it.
 */
export function describeCoordinationContract(
  label: string,
  make: (prefix: string) => Promise<Coordination>,
): void {
  describe(`coordination contract: ${label}`, () => {
    const opened: Coordination[] = [];
    const open = async (prefix = uniquePrefix()): Promise<Coordination> => {
      const coord = await make(prefix);
      opened.push(coord);
      return coord;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((c) => c.close()));
    });

    it('answers ping', async () => {
      const coord = await open();
      expect(await coord.ping()).toBe(true);
    });

    locksAndCacheContract(open);
    limitsContract(open);

    it('keeps instances with different prefixes apart', async () => {
      const a = await open();
      const b = await open();
      expect(await a.locks.acquire('shared', 5_000)).not.toBeNull();
      expect(await b.locks.acquire('shared', 5_000)).not.toBeNull();
      expect((await a.rateLimiter.hit('shared', 1, 5_000)).allowed).toBe(true);
      expect((await b.rateLimiter.hit('shared', 1, 5_000)).allowed).toBe(true);
      await a.cache.set('shared', 'from a', 5_000);
      expect(await b.cache.get('shared')).toBeUndefined();
    });
  });
}

import type { CampaignContext, SpeakerCharacter } from '@chronicler/ai';
import type { Coordination } from '@chronicler/kit';
import { createHash } from 'node:crypto';
import type { SummaryStore } from './db/store.ts';

/** Longer than a map-reduce recap with its retries: a lost holder frees the version eventually. */
const LOCK_TTL_MS = 15 * 60 * 1000;
const WAIT_STEP_MS = 1_000;

/** What a recap is made from: the same version is never sent to the model twice. */
export function recapVersion(
  model: string,
  t: { name: string; content: string },
  characters: SpeakerCharacter[],
  campaign?: CampaignContext,
): string {
  return createHash('sha256')
    .update(JSON.stringify([model, t.name, t.content, characters, ...(campaign ? [campaign] : [])]))
    .digest('hex');
}

/**
 * One model call chain per content version: the stored recap of this version when there is one;
 * else whoever holds the version's lock makes it (the same process shares its promise; another
 * replica waits for the row) and stores it for the next asker.
 */
export class RecapOnce {
  private readonly running = new Map<string, Promise<string>>();

  constructor(
    private readonly store: SummaryStore,
    private readonly coord: Coordination,
  ) {}

  async get(
    ownerId: string,
    transcriptId: string,
    version: string,
    make: () => Promise<string>,
  ): Promise<string> {
    const key = `${transcriptId}:${version}`;
    const mine = this.running.get(key);
    if (mine) return mine;
    const work = this.getOnce(ownerId, transcriptId, version, make).finally(() => this.running.delete(key));
    this.running.set(key, work);
    return work;
  }

  private async getOnce(
    ownerId: string,
    transcriptId: string,
    version: string,
    make: () => Promise<string>,
  ): Promise<string> {
    const lockKey = `summary:session:${transcriptId}:${version}`;
    for (let waited = 0; ; waited += WAIT_STEP_MS) {
      const stored = await this.store.recap(ownerId, transcriptId, version);
      if (stored !== null) return stored;
      const lock = await this.coord.locks.acquire(lockKey, LOCK_TTL_MS);
      if (lock) {
        try {
          // Made while this one waited for the lock: nothing to do.
          const again = await this.store.recap(ownerId, transcriptId, version);
          if (again !== null) return again;
          const text = await make();
          await this.store.setRecap(ownerId, transcriptId, version, text);
          return text;
        } finally {
          await lock.release().catch(() => false);
        }
      }
      // Another replica is making this very recap: its row is the answer.
      if (waited >= LOCK_TTL_MS) return make();
      await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    }
  }
}

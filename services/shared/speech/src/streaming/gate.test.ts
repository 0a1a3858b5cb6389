import { setTimeout as sleep } from 'node:timers/promises';
import { createCoordination, type Coordination } from '@chronicler/kit';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createStreamGate } from './gate.ts';

const REDIS_URL = process.env.REDIS_URL;
const variants: [string, () => Promise<Coordination>][] = [
  ['memory', () => createCoordination({ prefix: 'unused' })],
];
if (REDIS_URL) {
  variants.push([
    'redis',
    () =>
      createCoordination({
        redisUrl: REDIS_URL,
        prefix: `chronicler-test-${randomBytes(6).toString('hex')}`,
      }),
  ]);
} else {
  console.info('gate.test.ts: the Redis variant is skipped because REDIS_URL is not set');
}

describe.each(variants)('stream gate on %s coordination', (_label, make) => {
  const opened: Coordination[] = [];
  const open = async (): Promise<Coordination> => {
    const coord = await make();
    opened.push(coord);
    return coord;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((c) => c.close()));
  });

  it('refuses the stream past the limit, per provider, and frees a slot on release', async () => {
    const gate = createStreamGate(await open(), { deepgram: 2, assemblyai: 1, openai: 1 });
    const a = await gate.acquire('deepgram');
    const b = await gate.acquire('deepgram');
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(await gate.acquire('deepgram')).toBeNull();
    expect(await gate.acquire('assemblyai')).not.toBeNull();
    expect(await gate.counts()).toEqual({ deepgram: 2, assemblyai: 1, openai: 0 });

    await a!.release();
    await a!.release();
    expect(await gate.counts()).toEqual({ deepgram: 1, assemblyai: 1, openai: 0 });
    expect(await gate.acquire('deepgram')).not.toBeNull();
    expect(await gate.acquire('deepgram')).toBeNull();
  });

  it('frees the slots of a replica that stopped heartbeating, while a live one keeps its slot', async () => {
    const coord = await open();
    // Two replicas sharing one coordination: one heartbeats, the other "crashed" (no heartbeat in time).
    const alive = createStreamGate(
      coord,
      { deepgram: 2, assemblyai: 1, openai: 1 },
      { leaseMs: 200, heartbeatMs: 40 },
    );
    const crashed = createStreamGate(
      coord,
      { deepgram: 2, assemblyai: 1, openai: 1 },
      { leaseMs: 200, heartbeatMs: 60_000 },
    );
    const kept = await alive.acquire('deepgram');
    const lost = await crashed.acquire('deepgram');
    expect(kept).not.toBeNull();
    expect(lost).not.toBeNull();
    expect(await alive.acquire('deepgram')).toBeNull();

    // Nothing signals an expiry: wait past twice the lease, then look.
    await sleep(450);
    expect(await alive.counts()).toEqual({ deepgram: 1, assemblyai: 0, openai: 0 });
    expect(await alive.acquire('deepgram')).not.toBeNull();
    expect(await alive.acquire('deepgram')).toBeNull();
    await kept!.release();
    await lost!.release();
  });
});

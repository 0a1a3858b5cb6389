import { loadConfig } from '@chronicler/kit';
import { describe, expect, it } from 'vitest';
import { handoverWaitMs, shardIdsOf, shardOfGuild, VoiceBotConfigSchema } from './config.ts';

const config = (env: Record<string, string>) => loadConfig(VoiceBotConfigSchema, env);
const ids = (env: Record<string, string>, count?: number) => {
  const c = config(env);
  return shardIdsOf(c, count ?? c.SHARD_COUNT ?? 1);
};

describe('voice bot shards', () => {
  it('runs every shard by default, the listed ones with SHARD_IDS', () => {
    expect(ids({})).toEqual([0]);
    expect(ids({ SHARD_COUNT: '4' })).toEqual([0, 1, 2, 3]);
    expect(ids({ SHARD_COUNT: '4', SHARD_IDS: ' 3, 1,1' })).toEqual([1, 3]);
  });

  it('takes the StatefulSet ordinal of POD_NAME (else HOSTNAME) as its shard', () => {
    expect(ids({ SHARD_COUNT: '3', POD_NAME: 'voice-bot-2', HOSTNAME: 'x-0' })).toEqual([2]);
    expect(ids({ SHARD_COUNT: '3', HOSTNAME: 'chronicler-voice-bot-1' })).toEqual([1]);
    // SHARD_IDS wins over the ordinal.
    expect(ids({ SHARD_COUNT: '3', SHARD_IDS: '0', POD_NAME: 'voice-bot-2' })).toEqual([0]);
  });

  it('spreads a count Discord recommends over SHARD_REPLICAS by ordinal', () => {
    expect(ids({ SHARD_REPLICAS: '2', POD_NAME: 'voice-bot-1' }, 5)).toEqual([1, 3]);
    expect(ids({ SHARD_REPLICAS: '2', POD_NAME: 'voice-bot-0' }, 5)).toEqual([0, 2, 4]);
    expect(ids({ SHARD_REPLICAS: '2', POD_NAME: 'voice-bot-0' }, 1)).toEqual([0]);
    expect(ids({ SHARD_REPLICAS: '2', POD_NAME: 'voice-bot-1' }, 1)).toEqual([]);
    expect(() => ids({ SHARD_REPLICAS: '2', POD_NAME: 'voice-bot-2' }, 4)).toThrow(/SHARD_REPLICAS=2/);
  });

  it('refuses shard ids outside SHARD_COUNT, naming them', () => {
    expect(() => ids({ SHARD_COUNT: '2', SHARD_IDS: '0,2' })).toThrow(
      'Shard ids 2 are outside SHARD_COUNT=2 (shards 0..1)',
    );
    expect(() => ids({ SHARD_COUNT: '2', POD_NAME: 'voice-bot-5' })).toThrow(/outside/);
    expect(() => config({ SHARD_IDS: 'one' })).toThrow(/SHARD_IDS/);
  });

  it('routes a guild to the shard Discord does: (guild_id >> 22) % count', () => {
    const id = '197038439483310086';
    expect(shardOfGuild(id, 1)).toBe(0);
    expect(shardOfGuild(id, 4)).toBe(Number((BigInt(id) >> 22n) % 4n));
    expect(shardOfGuild(String((5n << 22n) + 123n), 3)).toBe(2);
  });
});

describe('waiting for a successor at SIGTERM', () => {
  it('waits HANDOVER_WAIT_SECONDS, leaving 25 s of the stop to the flush, and never in embedded mode', () => {
    const wait = (env: Record<string, string>, bus: 'nats' | 'memory' = 'nats') =>
      handoverWaitMs(config(env), bus);
    // The kit's default stop (15 s) leaves no time to wait.
    expect(wait({})).toBe(0);
    expect(wait({ SHUTDOWN_TIMEOUT_MS: '80000' })).toBe(20_000);
    expect(wait({ SHUTDOWN_TIMEOUT_MS: '40000', HANDOVER_WAIT_SECONDS: '60' })).toBe(15_000);
    expect(wait({ SHUTDOWN_TIMEOUT_MS: '150000', HANDOVER_WAIT_SECONDS: '90' })).toBe(90_000);
    expect(wait({ SHUTDOWN_TIMEOUT_MS: '80000', HANDOVER_WAIT_SECONDS: '0' })).toBe(0);
    // One process runs every service: no successor can ask while it runs.
    expect(wait({ SHUTDOWN_TIMEOUT_MS: '150000', HANDOVER_WAIT_SECONDS: '90' }, 'memory')).toBe(0);
  });
});

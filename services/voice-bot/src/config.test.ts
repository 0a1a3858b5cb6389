import { loadConfig } from '@chronicler/kit';
import { describe, expect, it } from 'vitest';
import { shardIdsOf, shardOfGuild, VoiceBotConfigSchema } from './config.ts';

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

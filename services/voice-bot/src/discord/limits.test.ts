import { createLogger, MemoryCoordination } from '@chronicler/kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordingLimits } from '../config.ts';
import type { BotCore } from './core.ts';
import { admit, guardRecording, type Admission } from './limits.ts';

const coord = new MemoryCoordination();
const posts: { channelId: string; text: string }[] = [];

const NO_LIMITS: RecordingLimits = {
  maxSessionSeconds: null,
  warnSeconds: 0,
  maxSpeakers: null,
  maxPerOwner: null,
  guildSecondsPerDay: null,
};

function core(limits: Partial<RecordingLimits>): BotCore {
  // Only what the limits use of the bot: its coordination store, its limits, its log and posts.
  return {
    o: { coord },
    limits: { ...NO_LIMITS, ...limits },
    log: createLogger('limits-test', { level: 'silent' }),
    post: async (channelId: string, text: string) => void posts.push({ channelId, text }),
  } as unknown as BotCore;
}

const recording = (guildId: string, ownerId: string) => ({
  guildId,
  ownerId,
  startedAt: new Date().toISOString(),
  textChannelId: '900',
});

afterEach(() => {
  posts.length = 0;
});

describe('recording limits', () => {
  it('refuses an owner over their concurrent recordings until one ends, two starts at once included', async () => {
    const c = core({ maxPerOwner: 1 });
    const refusal = /^You already have 1 recording running, the most one account may run at once\./;
    // Two starts at the same moment (two guilds): the slot is taken at admission, so one passes.
    const both = await Promise.all([admit(c, 'g1', 'owner-a'), admit(c, 'g2', 'owner-a')]);
    const passed = both.filter((a): a is Extract<Admission, { slot: unknown }> => 'slot' in a);
    expect(passed).toHaveLength(1);
    expect(both.find((a) => 'refused' in a)).toEqual({ refused: expect.stringMatching(refusal) });
    const guard = guardRecording(c, { ...recording('g1', 'owner-a'), slot: passed[0]!.slot }, () => {});
    expect(await admit(c, 'g2', 'owner-a')).toEqual({ refused: expect.stringMatching(refusal) });
    // Someone else is not held to it.
    const other = await admit(c, 'g2', 'owner-b');
    expect(other).toEqual({ slot: expect.anything() });
    // The recording's end frees the owner's slot.
    await guard.stop();
    const again = await admit(c, 'g2', 'owner-a');
    expect(again).toEqual({ slot: expect.anything() });
    for (const a of [other, again]) if ('slot' in a) await a.slot?.release();
  });

  it('without a per-owner limit takes no slot', async () => {
    expect(await admit(core({}), 'g1', 'owner-c')).toEqual({ slot: null });
  });

  it("refuses a guild whose day's recording hours are used, counted in the shared store", async () => {
    const c = core({ guildSecondsPerDay: 3600 });
    expect(await admit(c, 'g3', 'owner-a')).toEqual({ slot: null });
    // Another replica's recordings in the same guild today.
    const day = new Date().toISOString().slice(0, 10);
    await coord.windowCounters.add([
      { key: `voice:guild-seconds:g3:${day}`, windowMs: 2 * 86_400_000, delta: 3600 },
    ]);
    expect(await admit(c, 'g3', 'owner-a')).toEqual({
      refused:
        'This server has used its 1 hour of recording for today (UTC); recording is possible again after midnight UTC. Nothing was recorded.',
    });
    expect(await admit(c, 'g4', 'owner-a')).toEqual({ slot: null });
  });

  it('warns the channel before the maximum length, then ends the recording', async () => {
    const c = core({ maxSessionSeconds: 2, warnSeconds: 1 });
    const ended = new Promise<string>((resolve) => {
      guardRecording(c, recording('g5', 'owner-a'), resolve);
    });
    await expect(ended).resolves.toBe('⏹️ Recording ended: it reached its maximum length of 2 seconds.');
    expect(posts).toEqual([
      {
        channelId: '900',
        text: '⏳ This recording reaches its maximum length of 2 seconds in 1 second: it then ends and is saved. Run `/start` again to go on in a new session.',
      },
    ]);
  });
});

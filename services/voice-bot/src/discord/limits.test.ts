import { createLogger, MemoryCoordination } from '@chronicler/kit';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordingLimits } from '../config.ts';
import type { BotCore } from './core.ts';
import { admissionProblem, guardRecording } from './limits.ts';

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
  it('refuses an owner over their concurrent recordings until one ends', async () => {
    const c = core({ maxPerOwner: 1 });
    expect(await admissionProblem(c, 'g1', 'owner-a')).toBeNull();
    const guard = guardRecording(c, recording('g1', 'owner-a'), () => {});
    await new Promise((r) => setTimeout(r, 10));
    expect(await admissionProblem(c, 'g2', 'owner-a')).toMatch(
      /^You already have 1 recording running, the most one account may run at once\./,
    );
    // Someone else is not held to it.
    expect(await admissionProblem(c, 'g2', 'owner-b')).toBeNull();
    await guard.stop();
    expect(await admissionProblem(c, 'g2', 'owner-a')).toBeNull();
  });

  it("refuses a guild whose day's recording hours are used, counted in the shared store", async () => {
    const c = core({ guildSecondsPerDay: 3600 });
    expect(await admissionProblem(c, 'g3', 'owner-a')).toBeNull();
    // Another replica's recordings in the same guild today.
    const day = new Date().toISOString().slice(0, 10);
    await coord.windowCounters.add([
      { key: `voice:guild-seconds:g3:${day}`, windowMs: 2 * 86_400_000, delta: 3600 },
    ]);
    expect(await admissionProblem(c, 'g3', 'owner-a')).toBe(
      'This server has used its 1 hour of recording for today (UTC); recording is possible again after midnight UTC. Nothing was recorded.',
    );
    expect(await admissionProblem(c, 'g4', 'owner-a')).toBeNull();
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

import { createLogger, MemoryCoordination, voiceRecordingsRefused } from '@chronicler/kit';
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
  podRecordings: null,
  podSpeakers: null,
};

/** People in voice channels, by guild: `{ g1: { '11': ['u1', 'u2'] } }`; and the guilds recording, with their channel. */
interface Voice {
  people?: Record<string, Record<string, string[]>>;
  recording?: Record<string, string>;
}

function core(limits: Partial<RecordingLimits>, voice: Voice = {}): BotCore {
  // Only what the limits use of the bot: its coordination store, its limits, its log and posts,
  // the voice states of its guilds and the recordings it runs.
  const guild = (id: string) => {
    const states = Object.entries(voice.people?.[id] ?? {}).flatMap(([channelId, users]) =>
      users.map((u) => ({ id: u, channelId, member: { user: { bot: false } } })),
    );
    return {
      voiceStates: {
        cache: {
          filter: (f: (v: (typeof states)[number]) => boolean) => ({ size: states.filter(f).length }),
        },
      },
    };
  };
  return {
    o: { coord },
    limits: { ...NO_LIMITS, ...limits },
    log: createLogger('limits-test', { level: 'silent' }),
    post: async (channelId: string, text: string) => void posts.push({ channelId, text }),
    client: { guilds: { cache: { get: guild } } },
    allGuildVoices: () =>
      Object.entries(voice.recording ?? {}).map(([g, channel]) => [
        g,
        { recording: { state: { channel_id: channel } } },
      ]),
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
    const both = await Promise.all([admit(c, 'g1', 'owner-a', '11'), admit(c, 'g2', 'owner-a', '11')]);
    const passed = both.filter((a): a is Extract<Admission, { slot: unknown }> => 'slot' in a);
    expect(passed).toHaveLength(1);
    expect(both.find((a) => 'refused' in a)).toEqual({ refused: expect.stringMatching(refusal) });
    const guard = guardRecording(c, { ...recording('g1', 'owner-a'), slot: passed[0]!.slot }, () => {});
    expect(await admit(c, 'g2', 'owner-a', '11')).toEqual({ refused: expect.stringMatching(refusal) });
    // Someone else is not held to it.
    const other = await admit(c, 'g2', 'owner-b', '11');
    expect(other).toEqual({ slot: expect.anything() });
    // The recording's end frees the owner's slot.
    await guard.stop();
    const again = await admit(c, 'g2', 'owner-a', '11');
    expect(again).toEqual({ slot: expect.anything() });
    for (const a of [other, again]) if ('slot' in a) await a.slot?.release();
  });

  it('without a per-owner limit takes no slot', async () => {
    expect(await admit(core({}), 'g1', 'owner-c', '11')).toEqual({ slot: null });
  });

  it("refuses a guild whose day's recording hours are used, counted in the shared store", async () => {
    const c = core({ guildSecondsPerDay: 3600 });
    expect(await admit(c, 'g3', 'owner-a', '11')).toEqual({ slot: null });
    // Another replica's recordings in the same guild today.
    const day = new Date().toISOString().slice(0, 10);
    await coord.windowCounters.add([
      { key: `voice:guild-seconds:g3:${day}`, windowMs: 2 * 86_400_000, delta: 3600 },
    ]);
    expect(await admit(c, 'g3', 'owner-a', '11')).toEqual({
      refused:
        'This server has used its 1 hour of recording for today (UTC); recording is possible again after midnight UTC. Nothing was recorded.',
    });
    expect(await admit(c, 'g4', 'owner-a', '11')).toEqual({ slot: null });
  });

  it("refuses a recording beyond this process's bound on recordings or on people in recorded channels, and counts it", async () => {
    const refused = async (reason: string) =>
      (await voiceRecordingsRefused.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
    const people = { g1: { '11': ['a', 'b', 'c'] }, g2: { '21': ['d', 'e'] }, g3: { '31': ['f'] } };
    // Two recordings run (g1: 3 people, g2: 2); a third start in g3 (1 person).
    const busy = { people, recording: { g1: '11', g2: '21' } };
    const before = await refused('recordings');
    const full = await admit(core({ podRecordings: 2 }, busy), 'g3', 'owner-a', '31');
    expect(full).toEqual({
      refused:
        'This Chronicler voice bot is at capacity right now (2 recordings at once), so it cannot record here. Nothing was recorded: try `/start` again in a few minutes. Its operators have been alerted.',
    });
    expect(await refused('recordings')).toBe(before + 1);
    expect(await admit(core({ podRecordings: 3 }, busy), 'g3', 'owner-a', '31')).toEqual({ slot: null });
    // People: 5 in the recorded channels, one more would make 6.
    const crowded = await admit(core({ podSpeakers: 5 }, busy), 'g3', 'owner-a', '31');
    expect(crowded).toEqual({
      refused: expect.stringContaining('(5 people in its recorded channels at once)'),
    });
    expect(await admit(core({ podSpeakers: 6 }, busy), 'g3', 'owner-a', '31')).toEqual({ slot: null });
    // A process recording nothing takes any one channel, however full.
    expect(await admit(core({ podSpeakers: 2 }, { people }), 'g1', 'owner-a', '11')).toEqual({ slot: null });
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

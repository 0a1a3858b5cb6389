import type { Transcript } from '@chronicler/contracts';
import { OPUS_SILENCE_FRAME, oggPackets, parseOggPages } from '@chronicler/voice-bot/pipeline';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { guildIdForShard, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { apiCall } from '../support/api.ts';
import { countWords } from '../support/words.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { testMode, waitFor, type TestSystem } from '../support/system.ts';
import { sessionIdIn, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');
const MANAGE_GUILD = 1n << 5n;
// Longer than the restart below takes on a busy 2-core machine (in CI a 15 s window once ran
// out before the new bot's first heartbeat, and the sweep ended the session it was resuming).
const STALE_SECONDS = 60;

// The voice bot's process killed with SIGKILL in the middle of a recording: in the cluster the
// bot's own process (one process per service), in embedded mode the one process that runs every
// service, PGlite and the bus with it. The restarted process rejoins from the bot's journal and
// records on in the same transcript (the deploy and the shard growth:
// voice-bot-handover.test.ts). Cluster: killed again and not restarted, the transcript service
// ends the session after LIVE_SESSION_STALE_MINUTES and summarises it (in embedded mode that
// service dies with the bot).
const cluster = testMode === 'cluster';
const botProcess = cluster ? 'voice-bot' : 'all-in-one';
describe.runIf(hasEspeak)(`the voice bot killed with SIGKILL mid-session (${testMode} mode)`, () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let discord: DiscordPeer;
  let table: VoiceTable;
  let deepgram: DeepgramLivePeer;
  let recordings: string;
  let owner: string;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 7),
    name: 'Critical Role',
    ownerId: '2001',
    channels: [
      { id: '4001', name: 'table-talk', type: 0 },
      { id: '4002', name: 'Stage', type: 2 },
    ],
    members: [
      { id: '2001', username: 'matt', nick: 'Matt' },
      { id: '2003', username: 'travis', nick: 'Travis' },
    ],
  };
  const matt = { key: '2001', displayName: 'Matt', userId: '2001' };
  const travis = { key: '2003', displayName: 'Travis', userId: '2003' };

  beforeAll(async () => {
    rig = await startVoiceRig(guild, {
      LIVE_HEARTBEAT_SECONDS: '1',
      LIVE_SESSION_STALE_MINUTES: String(STALE_SECONDS / 60),
    });
    ({ system, discord, deepgram, recordings, owner } = rig);
    table = voiceTable(discord, guild.id, '4002');
  }, 180_000);

  afterAll(async () => {
    await table?.close();
    await rig?.stop();
  });

  const transcript = (id: string) => apiCall<Transcript>(system.url, 'GET', `/transcripts/${id}`, owner);
  /** Kills the bot; returns how many of Travis's speech packets the peer had relayed to it. */
  const killBot = async (): Promise<number> => {
    const bot = system.children.get(botProcess)!;
    const exited = new Promise((resolve) => bot.once('exit', resolve));
    const relayed = discord.voice.voicedRelayed(guild.id, travis.userId, discord.botUser.id);
    bot.kill('SIGKILL');
    await exited;
    return relayed;
  };

  it(`loses at most about a second of audio, counts the words the gap cost, continues the same transcript after a restart${cluster ? ', and goes stale' : ''}`, async () => {
    await table.join('2001');
    await table.join('2003');
    const lines = [
      'Welcome to the stage everyone',
      'Travis rolls a natural twenty',
      'And then the dragon turns toward the party with a terrible roar',
      'We are back after the restart',
      'The bard sings again',
    ];
    const turns = await table.prepare([
      { speaker: matt, text: lines[0]! },
      { speaker: travis, text: lines[1]! },
      { speaker: travis, text: lines[2]! },
      { speaker: matt, text: lines[3]! },
      { speaker: travis, text: lines[4]! },
    ]);
    // The speech peer answers only the words whose audio it receives.
    deepgram.script(turns);
    const started = await discord.command(guild.id, '4001', '2001', 'start', { name: 'Crash night' });
    const tid = sessionIdIn(started.content);
    await waitFor(async () => (await transcript(tid)).status === 200, 20_000);
    const viewer = new LiveViewer(system.url, tid, owner);
    try {
      await table.play(turns.slice(0, 2), { pauseSeconds: 1.2 });
      await viewer.untilLines(2, 30_000);
    } finally {
      viewer.close();
    }
    // Killed 2 s into a long line of Travis's: once 100 of its packets (2 s) reached the bot.
    const before = discord.voice.voicedRelayed(guild.id, travis.userId, discord.botUser.id);
    const playing = table.play([turns[2]!]);
    await waitFor(
      () => discord.voice.voicedRelayed(guild.id, travis.userId, discord.botUser.id) - before >= 100,
      30_000,
      20,
    );
    const relayedAtKill = await killBot();
    await playing;

    const state = JSON.parse(readFileSync(path.join(recordings, tid, 'session.json'), 'utf8')) as {
      ended_at: string | null;
    };
    expect(state.ended_at).toBeNull();
    // Travis's recording on disk holds all but about a second of the speech relayed to the bot
    // before the kill (50 packets a second), and nothing it was not sent. Counted in packets, not
    // against the clock: on a busy machine the file's clock can run a little ahead of the wall's.
    const speech = oggPackets(parseOggPages(readFileSync(path.join(recordings, tid, '2003.ogg'))))
      .slice(2) // OpusHead, OpusTags
      .filter((p) => !p.data.equals(OPUS_SILENCE_FRAME)).length;
    expect(relayedAtKill).toBeGreaterThan(100); // the first line and 2 s of the second
    expect(speech).toBeLessThanOrEqual(relayedAtKill);
    expect(relayedAtKill - speech).toBeLessThanOrEqual(65);
    // The session stays open (in embedded mode the process that answers died with the bot).
    if (cluster) expect((await transcript(tid)).body.status).toBe('active');

    // The bot comes back: it rejoins from its journal and records on in the same transcript,
    // the line the kill cut transcribed from the audio its predecessor spooled.
    const messagesBefore = discord.messages.length;
    await system.spawn!(botProcess);
    await waitFor(
      () => discord.messages.slice(messagesBefore).some((m) => m.content.includes('resumed')),
      120_000,
    );
    const notice = discord.messages.slice(messagesBefore).find((m) => m.content.includes('resumed'))!;
    expect(notice.channelId).toBe('4001');
    expect(notice.content).toContain(`sessions/${tid}`);
    await waitFor(async () => (await transcript(tid)).body.content.includes('dragon'), 30_000);
    await discord.untilVoiceConnections(guild.id, 2, 30_000);
    await table.play([turns[3]!]);
    await waitFor(async () => (await transcript(tid)).body.content.includes(lines[3]!), 30_000);
    const resumed = (await transcript(tid)).body;
    expect(resumed.status).toBe('active');
    expect(resumed.name).toBe('Crash night');
    const got = resumed.content.split('\n');
    expect(got).toEqual([
      expect.stringMatching(/Matt: Welcome to the stage everyone$/),
      expect.stringMatching(/Travis: Travis rolls a natural twenty$/),
      expect.stringMatching(/Travis: And then/),
      expect.stringMatching(/Chronicler: — recording paused for \d+ s \(bot crash\) —$/),
      expect.stringMatching(/Matt: We are back after the restart$/),
    ]);
    // The crash gap in words: the cut line keeps what the dead process had spooled (its
    // beginning, transcribed by the next process) and loses the rest, said while no bot was in
    // the channel; nothing else is lost, nothing doubled.
    const cut = countWords([{ speaker: 'Travis', text: lines[2]! }], got[2]!);
    console.log(`[crash] kill -9 2 s into a ${cut.said}-word line: ${JSON.stringify(cut)}`);
    expect(cut.heard).toBeGreaterThanOrEqual(1);
    expect(cut.extra).toBe(0);
    expect(lines[2]!.startsWith(got[2]!.replace(/^.*?Travis: /, ''))).toBe(true);
    expect(
      countWords(
        turns.slice(0, 4).map((t) => ({ speaker: t.speaker.displayName, text: t.text })),
        resumed.content,
      ),
    ).toMatchObject({ lost: cut.lost, extra: 0 });
    await table.play([turns[4]!]);
    await waitFor(async () => (await transcript(tid)).body.content.includes(lines[4]!), 30_000);
    if (!cluster) {
      await discord.command(guild.id, '4001', '2001', 'stop');
      await waitFor(async () => (await transcript(tid)).body.status === 'ended', 30_000);
      expect((await transcript(tid)).body.content).toMatch(/Travis: The bard sings again$/);
      return;
    }

    // Killed again and never restarted: the transcript service ends it once it goes stale.
    await killBot();
    await waitFor(
      async () => (await transcript(tid)).body.status === 'ended',
      (STALE_SECONDS + 30) * 1000,
      500,
    );
    const stale = (await transcript(tid)).body;
    expect(stale.transcription_error).toContain('without activity');
    expect(stale.content).toMatch(/Travis: The bard sings again$/);
    await waitFor(async () => {
      const t = (await transcript(tid)).body;
      return t.summary_status === 'done' && t.summary.length > 0;
    }, 30_000);
    expect(readdirSync(recordings)).toEqual([tid]);
    // One recording per speaker, appended to across the processes, kept on disk for the next bot.
    expect(
      readdirSync(path.join(recordings, tid))
        .filter((f) => f.endsWith('.ogg'))
        .sort(),
    ).toEqual(['2001.ogg', '2003.ogg']);
  }, 300_000);

  it.runIf(cluster)(
    'ends locally a session that went stale while it was away, and still stops an auto-recording it continues once its channel is empty',
    async () => {
      // The first test's session was ended by the stale sweep while no bot held it: the bot that
      // comes back does not record into it again; it saves its journal and says so.
      const [stale] = readdirSync(recordings);
      const messagesBefore = discord.messages.length;
      const since = (text: string) =>
        discord.messages.slice(messagesBefore).find((m) => m.content.includes(text));
      await system.spawn!('voice-bot');
      await waitFor(() => since('ended while the bot was away') !== undefined, 60_000);
      expect(since('ended while the bot was away')!.content).toContain(`sessions/${stale}`);
      const oldState = JSON.parse(readFileSync(path.join(recordings, stale!, 'session.json'), 'utf8')) as {
        ended_at: string | null;
      };
      expect(oldState.ended_at).not.toBeNull();
      expect(since('resumed')).toBeUndefined();

      // Auto-record from two members on the Stage, where Matt and Travis still are.
      const set = await discord.command(
        guild.id,
        '4001',
        '2001',
        'settings autorecord',
        { channel: '<#4002>', members: '2', empty: '0.05' },
        MANAGE_GUILD,
      );
      expect(set.content).toContain('Saved');
      await waitFor(() => since('by auto-record') !== undefined, 30_000);

      // A crash: the next process continues the auto-recording, and stops it once the Stage empties.
      await killBot();
      await system.spawn!('voice-bot');
      await waitFor(() => since('resumed') !== undefined, 60_000);
      const tid = sessionIdIn(since('resumed')!.content);
      expect(tid).not.toBe(stale);
      await table.leave('2001');
      await table.leave('2003');
      await waitFor(() => since('has been empty') !== undefined, 60_000);
      expect(since('has been empty')!.content).toContain(`sessions/${tid}`);
      await waitFor(async () => (await transcript(tid)).body.status === 'ended', 30_000);
    },
    240_000,
  );
});

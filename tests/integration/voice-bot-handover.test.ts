import type { AudioTrack, Transcript } from '@chronicler/contracts';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { guildIdForShard, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { apiCall } from '../support/api.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { testMode, waitFor, type TestSystem } from '../support/system.ts';
import { sessionIdIn, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');

// A recording that outlives its bot process: a deploy (SIGTERM, the next process of the shard
// takes it over), a crash (kill -9, the restarted process transcribes the utterance it cut from
// the audio spooled on disk), the shard count growing from 1 to 2 mid-recording, all into the
// same transcript, and a 4011 (sharding required) that stops the bot instead of looping. Bot
// processes are separate from the others, as in the cluster (in embedded mode every service
// shares one process and PGlite, so a bot cannot be killed alone): cluster mode only.
describe.runIf(hasEspeak && testMode === 'cluster')('a recording handed over between bot processes', () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let discord: DiscordPeer;
  let table: VoiceTable;
  let deepgram: DeepgramLivePeer;
  let owner: string;
  // Shard 1 of 2 (and shard 0 of 1): after the growth, the second replica holds it.
  const guild: PeerGuild = {
    id: guildIdForShard(1, 2, 11),
    name: 'Critical Role',
    ownerId: '2001',
    channels: [
      { id: '4101', name: 'table-talk', type: 0 },
      { id: '4102', name: 'Stage', type: 2 },
    ],
    members: [
      { id: '2001', username: 'matt', nick: 'Matt' },
      { id: '2003', username: 'travis', nick: 'Travis' },
    ],
  };
  const matt = { key: '2001', displayName: 'Matt', userId: '2001' };
  const travis = { key: '2003', displayName: 'Travis', userId: '2003' };
  const lines = [
    'Welcome to the stage everyone',
    'Travis rolls a natural twenty',
    'We are back after the deploy',
    'The bard sings again',
    'And then the dragon turns toward the party with a terrible roar',
    'Matt describes the cave after the crash',
    'Two shards now hold the table',
  ];

  beforeAll(async () => {
    rig = await startVoiceRig(guild, { LIVE_HEARTBEAT_SECONDS: '1' });
    ({ system, discord, deepgram, owner } = rig);
    table = voiceTable(discord, guild.id, '4102');
  }, 180_000);

  afterAll(async () => {
    await table?.close();
    await rig?.stop();
  });

  const transcript = async (id: string) =>
    (await apiCall<Transcript>(system.url, 'GET', `/transcripts/${id}`, owner)).body;
  const stopBot = async (key: string, signal: NodeJS.Signals): Promise<number | null> => {
    const bot = system.children.get(key)!;
    const exited = new Promise<number | null>((resolve) => bot.once('exit', (code) => resolve(code)));
    bot.kill(signal);
    return exited;
  };
  /** Waits for the bot's "resumed" line in the channel after `since` messages; answers it. */
  const resumedNotice = async (since: number): Promise<string> => {
    await waitFor(() => discord.messages.slice(since).some((m) => m.content.includes('resumed')), 60_000);
    const notices = discord.messages.slice(since).filter((m) => m.content.includes('resumed'));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.channelId).toBe('4101');
    return notices[0]!.content;
  };
  const contentLines = async (tid: string) => (await transcript(tid)).content.split('\n');

  it('continues the same transcript through a deploy, a crash and a growth to two shards', async () => {
    await table.join('2001');
    await table.join('2003');
    deepgram.script(lines);
    const turns = await table.prepare([
      { speaker: matt, text: lines[0]! },
      { speaker: travis, text: lines[1]! },
      { speaker: matt, text: lines[2]! },
      { speaker: travis, text: lines[3]! },
      { speaker: travis, text: lines[4]! },
      { speaker: matt, text: lines[5]! },
      { speaker: travis, text: lines[6]! },
    ]);
    const started = await discord.command(guild.id, '4101', '2001', 'start', { name: 'Handover night' });
    const tid = sessionIdIn(started.content);
    await waitFor(
      async () => (await apiCall(system.url, 'GET', `/transcripts/${tid}`, owner)).status === 200,
    );
    await table.play(turns.slice(0, 2), { pauseSeconds: 1.2 });
    await waitFor(async () => (await transcript(tid)).content.includes(lines[1]!), 30_000);

    // A deploy: SIGTERM. Every final is on the bus, the session stays open, and Discord drops
    // the bot from voice with its gateway session. A viewer is told the bot is reconnecting.
    const viewer = new LiveViewer(system.url, tid, owner);
    await viewer.untilLines(2, 30_000);
    const deployAt = Date.now();
    expect(await stopBot('voice-bot', 'SIGTERM')).toBe(0);
    expect((await transcript(tid)).status).toBe('active');
    const journal = JSON.parse(readFileSync(path.join(rig.recordings, tid, 'session.json'), 'utf8')) as {
      ended_at: string | null;
      suspended_at?: string;
    };
    expect(journal.ended_at).toBeNull();
    expect(journal.suspended_at).toBeTruthy();
    await waitFor(() => discord.botChannel(guild.id) === null, 10_000);

    // The next process of the shard rejoins from its journal and records on, same transcript.
    let since = discord.messages.length;
    await system.spawn!('voice-bot');
    const notice = await resumedNotice(since);
    console.log(
      `[handover] SIGTERM to "recording resumed": ${((Date.now() - deployAt) / 1000).toFixed(1)} s`,
    );
    expect(notice).toContain(`sessions/${tid}`);
    try {
      await waitFor(() => viewer.interims.some((i) => /^Reconnecting/.test(i.text)), 30_000);
      // The gap's marked pause takes the notice's place.
      await waitFor(() => viewer.ordered().some((l) => /recording paused/.test(l.text)), 30_000);
      const notice = viewer.interims.find((i) => /^Reconnecting/.test(i.text))!;
      const pause = viewer.ordered().find((l) => /recording paused/.test(l.text))!;
      expect(pause.utterance_id).toBe(notice.utterance_id);
    } finally {
      viewer.close();
    }
    await discord.untilVoiceConnections(guild.id, 2, 30_000);
    await table.play(turns.slice(2, 4), { pauseSeconds: 1.2 });
    await waitFor(async () => (await transcript(tid)).content.includes(lines[3]!), 30_000);
    const afterDeploy = await transcript(tid);
    expect(afterDeploy.name).toBe('Handover night');
    expect(afterDeploy.status).toBe('active');
    expect(afterDeploy.content.split('\n')).toEqual([
      expect.stringMatching(/Matt: Welcome to the stage everyone$/),
      expect.stringMatching(/Travis: Travis rolls a natural twenty$/),
      expect.stringMatching(/Chronicler: — recording paused for \d+ s \(bot restart\) —$/),
      expect.stringMatching(/Matt: We are back after the deploy$/),
      expect.stringMatching(/Travis: The bard sings again$/),
    ]);

    // A crash 2 s into a long line of Travis's: the restarted bot transcribes what its
    // predecessor had spooled of it, then records on.
    const playing = table.play([turns[4]!]);
    await new Promise((r) => setTimeout(r, 2000));
    const crashAt = Date.now();
    await stopBot('voice-bot', 'SIGKILL');
    await playing;
    since = discord.messages.length;
    await system.spawn!('voice-bot');
    await resumedNotice(since);
    console.log(`[handover] kill -9 to "recording resumed": ${((Date.now() - crashAt) / 1000).toFixed(1)} s`);
    await waitFor(async () => (await transcript(tid)).content.includes(lines[4]!), 30_000);
    await discord.untilVoiceConnections(guild.id, 3, 30_000);
    await table.play([turns[5]!]);
    await waitFor(async () => (await transcript(tid)).content.includes(lines[5]!), 30_000);
    expect((await contentLines(tid)).slice(5)).toEqual([
      expect.stringMatching(/Travis: And then the dragon turns toward the party/),
      expect.stringMatching(/Chronicler: — recording paused for \d+ s \(bot crash\) —$/),
      expect.stringMatching(/Matt: Matt describes the cave after the crash$/),
    ]);

    // Discord now recommends two shards: the old process stops, two replicas start, and the
    // one Discord routes the guild to (shard 1) takes the recording over.
    const growAt = Date.now();
    expect(await stopBot('voice-bot', 'SIGTERM')).toBe(0);
    discord.recommendedShards = 2;
    since = discord.messages.length;
    await system.spawn!('voice-bot', { env: { SHARD_REPLICAS: '2', POD_NAME: 'voice-bot-0' } });
    await system.spawn!('voice-bot', {
      key: 'voice-bot-1',
      env: { SHARD_REPLICAS: '2', POD_NAME: 'voice-bot-1' },
    });
    await resumedNotice(since);
    console.log(
      `[handover] 1 -> 2 shards, "recording resumed" after ${((Date.now() - growAt) / 1000).toFixed(1)} s`,
    );
    // Shard 1 may resume the recording before shard 0 has identified: wait for both.
    await waitFor(() => discord.identifies.filter((i) => i.shard[1] === 2).length >= 2, 30_000);
    expect(
      discord.identifies
        .slice(-2)
        .map((i) => i.shard)
        .sort(),
    ).toEqual([
      [0, 2],
      [1, 2],
    ]);
    await discord.untilVoiceConnections(guild.id, 4, 30_000);
    await table.play([turns[6]!]);
    await waitFor(async () => (await transcript(tid)).content.includes(lines[6]!), 30_000);
    await discord.command(guild.id, '4101', '2001', 'stop');
    await waitFor(async () => (await transcript(tid)).status === 'ended', 30_000);
    const ended = await transcript(tid);
    expect(ended.transcription_error).toBe('');
    const said = ended.content.split('\n').filter((l) => !/Chronicler: /.test(l));
    // Every utterance of both speakers, once each, in order.
    expect(said.map((l) => l.replace(/^.*?(Matt|Travis): /, '$1: '))).toEqual([
      `Matt: ${lines[0]}`,
      `Travis: ${lines[1]}`,
      `Matt: ${lines[2]}`,
      `Travis: ${lines[3]}`,
      expect.stringMatching(/^Travis: And then the dragon turns toward the party/),
      `Matt: ${lines[5]}`,
      `Travis: ${lines[6]}`,
    ]);
    expect(ended.content.match(/recording paused/g)).toHaveLength(3);
    // One track per speaker for the whole night, appended to by every process.
    const speakers = async () =>
      (await apiCall<AudioTrack[]>(system.url, 'GET', `/transcripts/${tid}/audio/tracks`, owner)).body.map(
        (t) => t.speaker,
      );
    await waitFor(async () => (await speakers()).length === 2, 30_000);
    expect(await speakers()).toEqual(['Matt', 'Travis']);
  }, 300_000);

  it('stops on a 4011 (sharding required): logged, counted, idle with the reason, not retried', async () => {
    await stopBot('voice-bot', 'SIGTERM');
    await stopBot('voice-bot-1', 'SIGTERM');
    discord.maxGuildsPerShard = 0;
    const closes = discord.gatewayCloses.length;
    await system.spawn!('voice-bot', { env: { SHARD_COUNT: '1' } });
    await waitFor(() => discord.gatewayCloses.length > closes, 60_000);
    expect(discord.gatewayCloses.at(-1)).toBe(4011);
    const health = async () =>
      (
        (await (await fetch(`${system.url}/api/health`)).json()) as {
          services: { name: string; status: string; detail?: string }[];
        }
      ).services.find((s) => s.name === 'voice-bot');
    await waitFor(async () => /4011/.test((await health())?.detail ?? ''), 30_000);
    expect(await health()).toMatchObject({
      status: 'idle',
      detail: expect.stringContaining('sharding required'),
    });
    const metrics = await (await fetch(`${system.opsUrls!().get('voice-bot')}/metrics`)).text();
    expect(metrics).toMatch(/chronicler_discord_gateway_fatal_closes_total\{code="4011"\} 1/);
    // Idle for good: the state says so only after the last attempt, and no other identify came.
    expect(discord.gatewayCloses.length).toBe(closes + 1);
  }, 120_000);
});

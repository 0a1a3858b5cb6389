import type { AudioTrack, Transcript } from '@chronicler/contracts';
import { existsSync } from 'node:fs';
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

// A recording that outlives its bot process: a deploy (SIGTERM mid-sentence, the next process
// of the shard takes it over from the running one without a gap), a crash (kill -9, the
// restarted process transcribes the utterance it cut from the audio spooled on disk), the
// shard count growing from 1 to 2 mid-recording, all into the same transcript, and a 4011
// (sharding required) that stops the bot instead of looping. Words are counted through a
// speech peer that answers only the audio it received. Bot processes are separate from the
// others, as in the cluster (in embedded mode every service shares one process and PGlite, so
// a bot cannot be stopped alone, nor a successor run beside it): cluster mode only.
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
    'Matt keeps talking through the deploy about the long road up to the mountain city of Kraghammer',
    'The bard sings again',
    'And then the dragon turns toward the party with a terrible roar',
    'Matt describes the cave after the crash',
    'Two shards now hold the table',
  ];

  beforeAll(async () => {
    // A stopping bot waits for its successor longer than one takes to start on a busy machine.
    rig = await startVoiceRig(guild, {
      LIVE_HEARTBEAT_SECONDS: '1',
      HANDOVER_WAIT_SECONDS: '90',
      SHUTDOWN_TIMEOUT_MS: '150000',
    });
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
  /** Resolves once the bot has been relayed `packets` voiced packets of `userId` since `from`. */
  const heardPackets = (userId: string, from: number, packets: number) =>
    waitFor(
      () => discord.voice.voicedRelayed(guild.id, userId, discord.botUser.id) - from >= packets,
      30_000,
      20,
    );
  const relayed = (userId: string) => discord.voice.voicedRelayed(guild.id, userId, discord.botUser.id);

  it('continues the same transcript through a deploy, a crash and a growth to two shards', async () => {
    await table.join('2001');
    await table.join('2003');
    const turns = await table.prepare([
      { speaker: matt, text: lines[0]! },
      { speaker: travis, text: lines[1]! },
      { speaker: matt, text: lines[2]! },
      { speaker: travis, text: lines[3]! },
      { speaker: travis, text: lines[4]! },
      { speaker: matt, text: lines[5]! },
      { speaker: travis, text: lines[6]! },
    ]);
    deepgram.script(turns);
    const started = await discord.command(guild.id, '4101', '2001', 'start', { name: 'Handover night' });
    const tid = sessionIdIn(started.content);
    await waitFor(
      async () => (await apiCall(system.url, 'GET', `/transcripts/${tid}`, owner)).status === 200,
    );
    await table.play(turns.slice(0, 2), { pauseSeconds: 1.2 });
    await waitFor(async () => (await transcript(tid)).content.includes(lines[1]!), 30_000);

    // A deploy: SIGTERM 1 s into a long sentence of Matt's, the next process started beside
    // the old one. The old one records on; the new one asks it for the recording, and at the
    // pause after the sentence it joins the channel (Discord moves the bot's voice there), holds
    // what it hears while the old one writes out what it had, and records on in the same files.
    const viewer = new LiveViewer(system.url, tid, owner);
    await viewer.untilLines(2, 30_000);
    const playing = table.play([turns[2]!]);
    await heardPackets('2001', relayed('2001'), 50);
    const deployAt = Date.now();
    const old = system.children.get('voice-bot')!;
    const oldExit = new Promise<number | null>((resolve) => old.once('exit', (code) => resolve(code)));
    old.kill('SIGTERM');
    const connections = discord.voiceConnections(guild.id);
    let since = discord.messages.length;
    await system.spawn!('voice-bot');
    await playing;
    // The old process exits once the new one is in the channel and it has written everything.
    expect(await oldExit).toBe(0);
    console.log(
      `[handover] SIGTERM to the old process's exit: ${((Date.now() - deployAt) / 1000).toFixed(1)} s`,
    );
    expect(discord.voiceConnections(guild.id)).toBe(connections + 1);
    await waitFor(async () => (await transcript(tid)).content.includes('Kraghammer'), 30_000);
    await table.play([turns[3]!]);
    await waitFor(async () => (await transcript(tid)).content.includes(lines[3]!), 30_000);
    const afterDeploy = await transcript(tid);
    expect(afterDeploy.name).toBe('Handover night');
    expect(afterDeploy.status).toBe('active');
    // Nothing paused, nothing lost: no marked gap, no "Reconnecting" notice, every word once.
    expect(afterDeploy.content.split('\n')).toEqual([
      expect.stringMatching(/Matt: Welcome to the stage everyone$/),
      expect.stringMatching(/Travis: Travis rolls a natural twenty$/),
      expect.stringMatching(new RegExp(`Matt: ${lines[2]}$`)),
      expect.stringMatching(/Travis: The bard sings again$/),
    ]);
    const deployWords = countWords(
      turns.slice(0, 4).map((t) => ({ speaker: t.speaker.displayName, text: t.text })),
      afterDeploy.content,
    );
    console.log(`[handover] words lost on SIGTERM mid-sentence: ${JSON.stringify(deployWords)}`);
    expect(deployWords).toMatchObject({ lost: 0, extra: 0 });
    expect(viewer.interims.some((i) => /^Reconnecting/.test(i.text))).toBe(false);
    expect(discord.messages.slice(since).some((m) => /resumed/.test(m.content))).toBe(false);
    viewer.close();

    // A crash 2 s (of audio relayed to the bot) into a long line of Travis's: the restarted bot transcribes what its
    // predecessor had spooled of it, then records on.
    const dragon = table.play([turns[4]!]);
    await heardPackets('2003', relayed('2003'), 100);
    const crashAt = Date.now();
    await stopBot('voice-bot', 'SIGKILL');
    await dragon;
    const crashViewer = new LiveViewer(system.url, tid, owner);
    since = discord.messages.length;
    await system.spawn!('voice-bot');
    await resumedNotice(since);
    console.log(`[handover] kill -9 to "recording resumed": ${((Date.now() - crashAt) / 1000).toFixed(1)} s`);
    // Viewers were told the bot is reconnecting; the marked pause takes the notice's place.
    try {
      await waitFor(() => crashViewer.interims.some((i) => /^Reconnecting/.test(i.text)), 30_000);
      await waitFor(() => crashViewer.ordered().some((l) => /\(bot crash\)/.test(l.text)), 30_000);
      const notice = crashViewer.interims.find((i) => /^Reconnecting/.test(i.text))!;
      const pause = crashViewer.ordered().find((l) => /\(bot crash\)/.test(l.text))!;
      expect(pause.utterance_id).toBe(notice.utterance_id);
    } finally {
      crashViewer.close();
    }
    await discord.untilVoiceConnections(guild.id, connections + 2, 30_000);
    await table.play([turns[5]!]);
    await waitFor(async () => (await transcript(tid)).content.includes(lines[5]!), 30_000);
    const afterCrash = (await contentLines(tid)).slice(4);
    expect(afterCrash.at(-2)).toMatch(/Chronicler: — recording paused for \d+ s \(bot crash\) —$/);
    expect(afterCrash.at(-1)).toMatch(/Matt: Matt describes the cave after the crash$/);
    // The cut line: what the dead process had spooled is there, what was said while no bot
    // was in the channel is not (counted in words: the speech peer answers what it received).
    const cut = countWords([{ speaker: 'Travis', text: lines[4]! }], afterCrash.slice(0, -2).join('\n'));
    console.log(`[handover] kill -9 2 s into a ${cut.said}-word line: ${JSON.stringify(cut)}`);
    expect(cut.heard).toBeGreaterThan(0);
    expect(cut.extra).toBe(0);

    // Discord now recommends two shards: two replicas start beside the old process, which is
    // stopped; the one Discord routes the guild to (shard 1) takes the recording over from it.
    const growAt = Date.now();
    const before = system.children.get('voice-bot')!;
    const beforeExit = new Promise<number | null>((resolve) => before.once('exit', (code) => resolve(code)));
    before.kill('SIGTERM');
    discord.recommendedShards = 2;
    await system.spawn!('voice-bot', {
      key: 'voice-bot-0',
      env: { SHARD_REPLICAS: '2', POD_NAME: 'voice-bot-0' },
    });
    await system.spawn!('voice-bot', {
      key: 'voice-bot-1',
      env: { SHARD_REPLICAS: '2', POD_NAME: 'voice-bot-1' },
    });
    expect(await beforeExit).toBe(0);
    console.log(
      `[handover] 1 -> 2 shards, the old process gone after ${((Date.now() - growAt) / 1000).toFixed(1)} s`,
    );
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
    await table.play([turns[6]!]);
    await waitFor(async () => (await transcript(tid)).content.includes(lines[6]!), 30_000);
    await discord.command(guild.id, '4101', '2001', 'stop');
    await waitFor(async () => (await transcript(tid)).status === 'ended', 30_000);
    const ended = await transcript(tid);
    expect(ended.transcription_error).toBe('');
    // Every word of both speakers once, but those the crash cost; one gap marked: the crash's.
    const all = countWords(
      turns.map((t) => ({ speaker: t.speaker.displayName, text: t.text })),
      ended.content,
    );
    expect(all).toMatchObject({ lost: cut.lost, extra: 0 });
    expect(ended.content.match(/recording paused/g)).toHaveLength(1);
    // One track per speaker for the whole night, appended to by every process.
    const speakers = async () =>
      (await apiCall<AudioTrack[]>(system.url, 'GET', `/transcripts/${tid}/audio/tracks`, owner)).body.map(
        (t) => t.speaker,
      );
    await waitFor(async () => (await speakers()).length === 2, 30_000);
    expect(await speakers()).toEqual(['Matt', 'Travis']);
  }, 300_000);

  it('stops on a 4011 (sharding required): logged, counted, idle with the reason, not retried', async () => {
    await stopBot('voice-bot-0', 'SIGTERM');
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

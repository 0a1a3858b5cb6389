import type { Transcript } from '@chronicler/contracts';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { guildIdForShard, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { apiCall } from '../support/api.ts';
import { testMode, waitFor, type TestSystem } from '../support/system.ts';
import { sessionIdIn, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');
const cluster = testMode === 'cluster';
const botProcess = cluster ? 'voice-bot' : 'all-in-one';
/** 48 kHz stereo 16-bit: bytes a second. */
const PCM_RATE = 192_000;

// A member who is already talking when the bot's voice connection comes up gets no Speaking op
// from Discord (the peer follows it: server.ts, Identify), and @discordjs/voice drops the
// packets of an SSRC no Speaking op named. That is the state after every /start in the middle
// of a conversation and after every crash recovery. The bot still hears them (unannounced.ts):
// in this end-to-end encrypted (DAVE) channel by whose key decrypts the frame, with a silent
// member beside them so that elimination alone could not tell.
describe.runIf(hasEspeak)(`a member mid-sentence when the bot joins and rejoins (${testMode} mode)`, () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let discord: DiscordPeer;
  let table: VoiceTable;
  let deepgram: DeepgramLivePeer;
  let owner: string;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 11),
    name: 'Mighty Nein',
    ownerId: '2001',
    channels: [
      { id: '4101', name: 'table-talk', type: 0 },
      { id: '4102', name: 'Tavern', type: 2 },
    ],
    members: [
      { id: '2001', username: 'matt', nick: 'Matt' },
      { id: '2003', username: 'travis', nick: 'Travis' },
    ],
  };
  const travis = { key: '2003', displayName: 'Travis', userId: '2003' };
  const sentence = 'The dragon wakes beneath the mountain';

  beforeAll(async () => {
    rig = await startVoiceRig(guild, { LIVE_HEARTBEAT_SECONDS: '1' });
    ({ system, discord, deepgram, owner } = rig);
    discord.voice.daveGuilds.add(guild.id);
    table = voiceTable(discord, guild.id, '4102', { dave: true });
  }, 180_000);

  afterAll(async () => {
    await table?.close();
    await rig?.stop();
  });

  const transcript = (id: string) => apiCall<Transcript>(system.url, 'GET', `/transcripts/${id}`, owner);
  const travisLines = (content: string) => content.split('\n').filter((l) => /Travis: .*dragon/.test(l));
  const botId = () => discord.botUser.id;
  /** Speaking ops Travis's client sent (one a play). */
  const travisSpoke = () =>
    discord.voice.events.filter(
      (e) => e.userId === travis.userId && e.kind === 'speaking' && e.detail?.speaking,
    ).length;
  const identifies = () =>
    discord.voice.events.filter(
      (e) => e.userId === botId() && e.guildId === guild.id && e.kind === 'identify',
    ).length;

  it('transcribes a member who never stops talking while the bot joins, and again while it rejoins after kill -9', async () => {
    await table.join('2001');
    await table.join('2003');
    // One long stretch of Travis talking (one play: his client says Speaking once), the same
    // sentence again and again with short breaths between, each its own segment for the peer.
    const once = (await table.prepare([{ speaker: travis, text: sentence }]))[0]!.pcm;
    const breath = Buffer.alloc(Math.round(0.8 * PCM_RATE) & ~3);
    const repeats = 30;
    const long = Buffer.concat(Array.from({ length: repeats }, () => [once, breath]).flat());
    deepgram.script([{ text: Array.from({ length: repeats }, () => sentence).join(' '), pcm: long }]);

    /** Travis talks until `until` holds (or the audio runs out), then stops. */
    const talkUntil = async (until: () => boolean | Promise<boolean>) => {
      const stop = new AbortController();
      const talking = table.member('2003').say(long, stop.signal);
      try {
        await waitFor(until, 150_000, 100);
      } finally {
        stop.abort();
        await talking;
      }
    };

    // 1. /start while Travis is mid-sentence.
    const before = identifies();
    const spokeBefore = travisSpoke();
    let tid = '';
    await talkUntil(async () => {
      if (!tid) {
        // He is talking (his one Speaking op went out before the bot came).
        if (travisSpoke() === spokeBefore) return false;
        const started = await discord.command(guild.id, '4101', '2001', 'start', { name: 'Mid-sentence' });
        tid = sessionIdIn(started.content);
      }
      return travisLines((await transcript(tid)).body.content ?? '').length > 0;
    });
    expect(identifies()).toBeGreaterThan(before);
    // Discord never named Travis's SSRC to the bot, and the bot heard him anyway.
    expect(discord.voice.speakingSent(guild.id, travis.userId, botId())).toBe(0);
    const first = (await transcript(tid)).body;
    expect(travisLines(first.content).length).toBeGreaterThan(0);

    // 2. The bot is killed; Travis starts talking again while no bot is there, and is still
    // talking as the restarted bot rejoins from its journal.
    const bot = system.children.get(botProcess)!;
    const exited = new Promise((resolve) => bot.once('exit', resolve));
    bot.kill('SIGKILL');
    await exited;
    const lines = travisLines(first.content).length;
    const messagesBefore = discord.messages.length;
    const rejoinedBefore = identifies();
    const spokeAgain = travisSpoke();
    let opsBefore = -1;
    await talkUntil(async () => {
      // His Speaking op went out (to the dead bot's voice session, which Discord keeps a while
      // for a resume), then the bot comes back while he talks.
      if (opsBefore < 0) {
        if (travisSpoke() === spokeAgain) return false;
        opsBefore = discord.voice.speakingSent(guild.id, travis.userId, botId());
        await system.spawn!(botProcess);
      }
      if (identifies() === rejoinedBefore) return false;
      return travisLines((await transcript(tid)).body.content ?? '').length > lines;
    });
    expect(discord.messages.slice(messagesBefore).some((m) => m.content.includes('resumed'))).toBe(true);
    // The rejoined bot too was never sent Travis's Speaking op, and transcribed him.
    expect(discord.voice.speakingSent(guild.id, travis.userId, botId())).toBe(opsBefore);
    const after = (await transcript(tid)).body;
    expect(after.status).toBe('active');
    expect(travisLines(after.content).length).toBeGreaterThan(lines);
  }, 420_000);
});

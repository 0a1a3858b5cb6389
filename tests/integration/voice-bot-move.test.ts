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

// A moderator drags the bot into another voice channel (Move Members): the table moved there,
// and the recording follows it. The members already in the new channel were never told they are
// recorded: the consent rules apply to them as to anyone joining a recorded channel (announce
// mode: a notice before any of their speech is used).
describe.runIf(hasEspeak)(`the voice bot moved by a moderator (${testMode} mode)`, () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let discord: DiscordPeer;
  let deepgram: DeepgramLivePeer;
  let owner: string;
  let tavern: VoiceTable;
  let cellar: VoiceTable;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 13),
    name: 'Moving Table',
    ownerId: '2001',
    channels: [
      { id: '4201', name: 'table-talk', type: 0 },
      { id: '4202', name: 'Tavern', type: 2 },
      { id: '4203', name: 'Cellar', type: 2 },
    ],
    members: [
      { id: '2001', username: 'matt', nick: 'Matt' },
      { id: '2004', username: 'sam', nick: 'Sam' },
    ],
  };
  const matt = { key: '2001', displayName: 'Matt', userId: '2001' };
  const sam = { key: '2004', displayName: 'Sam', userId: '2004' };

  beforeAll(async () => {
    rig = await startVoiceRig(guild);
    ({ system, discord, deepgram, owner } = rig);
    tavern = voiceTable(discord, guild.id, '4202');
    cellar = voiceTable(discord, guild.id, '4203');
  }, 180_000);

  afterAll(async () => {
    await tavern?.close();
    await cellar?.close();
    await rig?.stop();
  });

  const transcript = (id: string) => apiCall<Transcript>(system.url, 'GET', `/transcripts/${id}`, owner);

  it('follows the move, says so, notices the members already there, and records them', async () => {
    await tavern.join('2001');
    await cellar.join('2004');
    const turns = await tavern.prepare([
      { speaker: matt, text: 'We start in the tavern tonight' },
      { speaker: sam, text: 'Down in the cellar the barrels whisper' },
    ]);
    deepgram.script(turns);
    const started = await discord.command(guild.id, '4201', '2001', 'start', { name: 'Moved night' });
    const tid = sessionIdIn(started.content);
    await waitFor(() => discord.botChannel(guild.id) === '4202', 30_000);
    await tavern.play([turns[0]!]);
    await waitFor(async () => (await transcript(tid)).body.content.includes('Matt: We start'), 30_000);

    const posted = discord.messages.length;
    const identifies = () =>
      discord.voice.events.filter((e) => e.userId === discord.botUser.id && e.kind === 'identify').length;
    const before = identifies();
    discord.moveVoice(guild.id, discord.botUser.id, '4203');
    // The bot connects in the new channel, and says where the recording went.
    await waitFor(() => identifies() > before, 30_000);
    await waitFor(() => discord.messages.slice(posted).some((m) => m.content.includes('moved')), 30_000);
    const moved = discord.messages.slice(posted).find((m) => m.content.includes('moved'))!;
    expect(moved.channelId).toBe('4201');
    expect(moved.content).toContain('<#4203>');
    expect(moved.content).toContain(`sessions/${tid}`);
    // Sam was in the Cellar all along: told by DM that it is recorded now, with the buttons.
    await waitFor(() => discord.dmChannel('2004') !== null, 30_000);
    const dm = discord.dmChannel('2004')!;
    await waitFor(() => discord.messages.some((m) => m.channelId === dm), 30_000);
    // And then recorded, in the same session.
    await cellar.play([turns[1]!]);
    await waitFor(
      async () => (await transcript(tid)).body.content.includes('Sam: Down in the cellar'),
      30_000,
    );
    const t = (await transcript(tid)).body;
    expect(t.status).toBe('active');
    expect(discord.botChannel(guild.id)).toBe('4203');
    // Still one recording: a /stop ends it, in the new channel.
    await discord.command(guild.id, '4201', '2001', 'stop');
    await waitFor(async () => (await transcript(tid)).body.status === 'ended', 60_000);
    expect((await transcript(tid)).body.content).toMatch(
      /Matt: We start in the tavern tonight[\s\S]*Sam: Down/,
    );
  }, 240_000);
});

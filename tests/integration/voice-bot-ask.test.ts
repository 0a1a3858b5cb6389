import { putServerSettingsRpc, type Group, type TranscriptListItem } from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homeGameTranscript } from '../eval/home-game.ts';
import { guildIdForShard, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { apiCall } from '../support/api.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { testMode, type TestSystem } from '../support/system.ts';
import { startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

interface Embed {
  title: string;
  description: string;
  fields: { name: string; value: string }[];
  footer: { text: string };
}

// `/ask` in a Discord server: the campaign answers from all its sessions, with absolute links
// (PUBLIC_URL) to the moments, only to the one who asked. Offline engine.
describe(`/ask in Discord (${testMode} mode)`, () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let discord: DiscordPeer;
  let ownerId: string;
  let group: Group;
  let mill: TranscriptListItem;
  const home = homeGameTranscript();
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 41),
    name: 'Ask Table',
    ownerId: '4101',
    channels: [
      { id: '9101', name: 'table-talk', type: 0 },
      { id: '9102', name: 'Tavern', type: 2 },
    ],
    members: [
      { id: '4101', username: 'gm', nick: 'GM' },
      { id: '4102', username: 'player', nick: 'Player' },
    ],
  };

  beforeAll(async () => {
    rig = await startVoiceRig(guild, {}, { processes: 'one' });
    ({ system, discord } = rig);
    const api = <T>(method: string, path: string, body?: unknown) =>
      apiCall<T>(system.url, method, path, rig.owner, body);
    ownerId = (await api<{ user: { id: string } }>('GET', '/auth/user')).body.user.id;
    group = (await api<Group>('POST', '/groups', { name: 'Whisperwood' })).body;
    const create = async (name: string, transcript: string, date: string) =>
      (
        await api<TranscriptListItem>('POST', '/transcripts/manual', {
          name,
          session_date: date,
          transcript,
          group_id: group.id,
        })
      ).body;
    mill = await create('The mill', home.transcript, '2026-03-01T00:00:00.000Z');
    await create(
      'Kraghammer',
      crd3Transcript('C1E001', { timed: true, maxChars: 20_000 }),
      '2026-03-08T00:00:00.000Z',
    );
  }, 120_000);
  afterAll(async () => {
    await rig?.stop();
  });

  const ask = (userId: string, options: Record<string, string>) =>
    discord.command(guild.id, '9101', userId, 'ask', options);
  const embedOf = (reply: Awaited<ReturnType<typeof ask>>) =>
    (reply.record.edits.at(-1)!.embeds as Embed[])[0]!;

  it('asks the server’s default campaign, answering the asker alone with links to the moments', async () => {
    const unset = await ask('4101', { question: 'Who is hunting the crown?' });
    expect(unset.ephemeral).toBe(true);
    expect(unset.content).toContain('set this server’s default group in its settings');

    await call(system.platform!.bus, putServerSettingsRpc, {
      guild_id: guild.id,
      editor_id: ownerId,
      change: { default_group_id: group.id },
    });
    const reply = await ask('4101', { question: 'Who is hunting the crown?' });
    expect(reply.ephemeral).toBe(true);
    const embed = embedOf(reply);
    const moment = `http://chronicler.test/sessions/${mill.id}#t=${home.times[48]}`;
    expect(embed.title).toBe('Who is hunting the crown?');
    expect(embed.description).toContain(
      `From [The mill](${moment}), 2026-03-01:\n> [${home.times[48]}](${moment}) GM: Grub sulks but says his boss`,
    );
    expect(embed.fields[0]!.name).toBe('Cited moments');
    expect(embed.fields[0]!.value.split('\n')[0]).toBe(`1. [The mill at ${home.times[48]}](${moment})`);
    expect(embed.description).not.toContain('](/sessions/');
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    expect(embed.footer.text).toContain('no AI model is connected');
  });

  it('asks a group named in the command, offered as the user types, and says what is wrong in words', async () => {
    const choices = await discord.autocomplete(guild.id, '9101', '4101', 'Whis', {
      command: 'ask',
      option: 'group',
    });
    expect(choices).toEqual(['Whisperwood']);
    const named = await ask('4101', { question: 'What is the name of the bear?', group: 'Whisperwood' });
    expect(embedOf(named).description).toContain('Trinket');
    const unknown = await ask('4101', { question: 'Anything?', group: 'Nope' });
    expect(unknown.content).toBe('You have no group named “Nope”.');
    const blank = await ask('4101', { question: '   ' });
    expect(blank.content).toBe('Question cannot be empty.');
    const stranger = await ask('4102', { question: 'Who is hunting the crown?' });
    expect(stranger.ephemeral).toBe(true);
    expect(stranger.content).toMatch(/^Questions are asked of your own campaigns: Sign in with Discord at/);
  });
});

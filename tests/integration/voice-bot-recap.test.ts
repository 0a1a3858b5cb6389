import { existsSync } from 'node:fs';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, type ChannelMessage, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { apiCall } from '../support/api.ts';
import { testMode, waitFor, type TestSystem } from '../support/system.ts';
import { recordSession, seatTable, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

// Speech to play (espeak-ng): skipped on a machine without it.
const hasEspeak = existsSync('/usr/bin/espeak-ng');

interface Embed {
  title: string;
  url?: string;
  description: string;
  fields: { name: string; value: string }[];
  footer: { text: string };
}

function withinDiscordLimits(e: Embed): void {
  expect(e.title.length).toBeLessThanOrEqual(256);
  expect(e.description.length).toBeLessThanOrEqual(4096);
  expect(e.fields.length).toBeLessThanOrEqual(25);
  for (const f of e.fields) {
    expect(f.name.length).toBeLessThanOrEqual(256);
    expect(f.value.length).toBeLessThanOrEqual(1024);
  }
  expect(e.footer.text.length).toBeLessThanOrEqual(2048);
  const total =
    e.title.length +
    e.description.length +
    e.footer.text.length +
    e.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
  expect(total).toBeLessThanOrEqual(6000);
}

// Members speak through real @discordjs/voice clients; once the /stop'ped session's summary is
// stored, its recap comes back to the channel where /start ran, once; /recap posts it on demand.
// At /stop the transcript itself is posted there as a Markdown file.
describe.runIf(hasEspeak)(`the recap back in Discord (${testMode} mode)`, () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let discord: DiscordPeer;
  let table: VoiceTable;
  let owner: string;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 37),
    name: 'Recap Table',
    ownerId: '3701',
    channels: [
      { id: '8701', name: 'table-talk', type: 0 },
      { id: '8702', name: 'Tavern', type: 2 },
      { id: '8703', name: 'elsewhere', type: 0 },
    ],
    members: [
      { id: '3701', username: 'matt', nick: 'Matt' },
      { id: '3702', username: 'laura', nick: 'Laura' },
    ],
  };
  const matt = { key: '3701', displayName: 'Matt', userId: '3701' };
  const laura = { key: '3702', displayName: 'Laura', userId: '3702' };

  beforeAll(async () => {
    rig = await startVoiceRig(guild, {}, { processes: 'one' });
    ({ system, discord, owner } = rig);
    table = await seatTable(rig, guild.id, '8702', ['3701', '3702']);
  }, 120_000);

  afterAll(async () => {
    await table?.close();
    await rig?.stop();
  });

  const recapsIn = (channelId: string): ChannelMessage[] =>
    discord.messages.filter((m) => m.channelId === channelId && (m.embeds?.length ?? 0) > 0);

  it('posts the recap embed once in the announcement channel after /stop, and /recap posts it again on demand', async () => {
    const turns: Turn[] = [
      { speaker: matt, text: 'The dragon circles above the tower' },
      { speaker: laura, text: 'Vex nocks an arrow and waits' },
    ];
    const { tid } = await recordSession(rig, table, {
      guildId: guild.id,
      textChannelId: '8701',
      by: '3701',
      turns,
      name: 'The Tower',
    });

    await waitFor(() => recapsIn('8701').length > 0, 90_000);
    const [posted] = recapsIn('8701');
    const embed = posted!.embeds![0] as unknown as Embed;
    expect(embed.title).toBe('The Tower');
    expect(embed.url).toBe(`http://chronicler.test/sessions/${tid}`);
    expect(embed.description.length).toBeGreaterThan(0);
    expect(embed.fields.find((f) => f.name === 'Full session')?.value).toBe(
      `http://chronicler.test/sessions/${tid}`,
    );
    withinDiscordLimits(embed);
    const session = await apiCall<{ summary: string }>(system.url, 'GET', `/transcripts/${tid}`, owner);
    expect(session.body.summary.length).toBeGreaterThan(0);

    // A summary made again (Generate) does not post it a second time.
    const again = await apiCall(system.url, 'POST', `/transcripts/${tid}/generate-summary`, owner);
    expect(again.status).toBeLessThan(300);

    // On demand, in the channel it is asked from: autocomplete offers the caller's sessions here.
    const choices = await discord.autocomplete(guild.id, '8703', '3701', 'tow', {
      command: 'recap',
      option: 'session',
    });
    expect(choices).toEqual([expect.stringMatching(/^The Tower \(\d{4}-\d{2}-\d{2}\)$/)]);
    const onDemand = await discord.command(guild.id, '8703', '3701', 'recap');
    expect(onDemand.ephemeral).toBe(false);
    const shown = (onDemand.record.callbacks[0]!.data!.embeds as Embed[])[0]!;
    expect(shown.title).toBe('The Tower');
    withinDiscordLimits(shown);
    const named = await discord.command(guild.id, '8703', '3701', 'recap', { session: tid });
    expect((named.record.callbacks[0]!.data!.embeds as Embed[])[0]!.title).toBe('The Tower');
    // Someone without sessions here: told so, only them.
    const none = await discord.command(guild.id, '8703', '3702', 'recap');
    expect(none.ephemeral).toBe(true);
    expect(recapsIn('8701')).toHaveLength(1);
  }, 240_000);

  // What Craig and Archivist do: the transcript itself, as a file, where the recording was announced.
  it('posts the transcript as the Markdown export in the announcement channel at /stop, and says why when it cannot attach it', async () => {
    const before = discord.messages.length;
    const turns: Turn[] = [
      { speaker: matt, text: 'The caravan reaches the river at dusk' },
      { speaker: laura, text: 'Vex scouts ahead of the wagons' },
    ];
    const { tid } = await recordSession(rig, table, {
      guildId: guild.id,
      textChannelId: '8701',
      by: '3701',
      turns,
      name: 'The River',
    });
    // This session's post: the first test's session may post its own file after this one began.
    const withFile = () =>
      discord.messages
        .slice(before)
        .find((m) => (m.attachments?.length ?? 0) > 0 && m.content?.includes(`sessions/${tid}`));
    await waitFor(() => withFile() !== undefined, 60_000);
    const posted = withFile()!;
    expect(posted.channelId).toBe('8701');
    expect(posted.content).toContain(`sessions/${tid}`);
    expect(posted.attachments).toHaveLength(1);
    const [file] = posted.attachments!;
    expect(file!.filename).toMatch(/^The-River-\d{4}-\d{2}-\d{2}\.md$/);
    expect(file!.contentType).toMatch(/^text\/markdown/);
    // The web app's Markdown export of the session as it stood at /stop: every line (the summary
    // may or may not be made by then: the recap embed brings it); from the notes on, byte for byte.
    const text = file!.data.toString('utf8');
    const exported = await fetch(`${system.url}/api/transcripts/${tid}/export?format=md`, {
      headers: { authorization: `Bearer ${owner}` },
    });
    expect(exported.status).toBe(200);
    const fromNotes = (md: string) => md.slice(md.indexOf('\n## Notes'));
    expect(text).toMatch(/^# The River\n/);
    expect(text).toContain('\n## Summary\n');
    expect(fromNotes(text)).toBe(fromNotes(await exported.text()));
    for (const t of turns) expect(text).toContain(t.text);

    // Without Attach Files in that channel Discord refuses the file (50013): the channel is told
    // why, with the link, and nothing else breaks.
    discord.noAttachFiles.add('8701');
    try {
      const next = discord.messages.length;
      const second = await recordSession(rig, table, {
        guildId: guild.id,
        textChannelId: '8701',
        by: '3701',
        turns: [{ speaker: matt, text: 'The bridge is out' }],
        name: 'The Bridge',
      });
      const told = () => discord.messages.slice(next).find((m) => /Attach Files/.test(m.content));
      await waitFor(() => told() !== undefined, 60_000);
      expect(told()!.channelId).toBe('8701');
      expect(told()!.content).toContain(`sessions/${second.tid}`);
      expect(discord.messages.slice(next).some((m) => (m.attachments?.length ?? 0) > 0)).toBe(false);
    } finally {
      discord.noAttachFiles.delete('8701');
    }
  }, 240_000);
});

import {
  memberConsentsRpc,
  type GuildDirectory,
  type ServerSettings,
  type Transcript,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, MEMBER_PERMISSIONS, type PeerGuild } from '../peers/discord.ts';
import { apiCall } from '../support/api.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { testMode, waitFor } from '../support/system.ts';
import { signInWithDiscord, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');
const MANAGE_GUILD = 1n << 5n;

// Server settings and consent everyone sees, against the Discord peer with members as real
// @discordjs/voice clients: settings changed on the web reach the bot without a restart; in
// opt-in mode only who pressed Record me is captured (a late joiner gets the notice and is not
// captured before pressing); the bot's nickname shows the recording; announce mode tells a
// late joiner in the channel when their DMs are closed; /offrecord is stored; auto-record
// starts when the third member joins and stops once the channel has emptied.
describe.runIf(hasEspeak)(`server settings and consent (${testMode} mode)`, () => {
  let rig: VoiceRig;
  let table: VoiceTable;
  let owner: string;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 35),
    name: 'Consent Table',
    ownerId: '2001',
    channels: [
      { id: '5001', name: 'table-talk', type: 0 },
      { id: '5002', name: 'Tavern', type: 2 },
      { id: '5003', name: 'Weekly', type: 2 },
    ],
    members: [
      { id: '2001', username: 'matt', nick: 'Matt' },
      { id: '2002', username: 'laura', nick: 'Laura' },
      { id: '2003', username: 'travis', nick: 'Travis' },
      { id: '2004', username: 'sam', nick: 'Sam' },
    ],
    roles: [
      { id: '6001', name: 'Game Master' },
      { id: '6002', name: 'Chronicler', managed: true },
    ],
  };
  const otherGuild = guildIdForShard(0, 1, 36);
  const matt = { key: '2001', displayName: 'Matt', userId: '2001' };
  const laura = { key: '2002', displayName: 'Laura', userId: '2002' };
  const travis = { key: '2003', displayName: 'Travis', userId: '2003' };
  const sam = { key: '2004', displayName: 'Sam', userId: '2004' };

  beforeAll(async () => {
    rig = await startVoiceRig(guild, {}, { processes: 'one' });
    // Signed in again with the guilds Discord lists for Matt: he owns this server and is a
    // plain member of another.
    rig.oauth.discordGuilds.set('2001', [
      { id: guild.id, name: guild.name, owner: true, permissions: '0' },
      { id: otherGuild, name: 'Someone Else’s', permissions: String(MEMBER_PERMISSIONS) },
    ]);
    owner = await signInWithDiscord(rig.system, rig.oauth, { id: '2001', username: 'matt' });
    await waitFor(() => rig.discord.commands.has('global'), 30_000);
    table = voiceTable(rig.discord, guild.id, '5002');
  }, 180_000);

  afterAll(async () => {
    await table?.close();
    await rig?.stop();
  });

  const settingsUrl = (id: string) => `/discord/servers/${id}/settings`;
  const sessionOf = (content: string): string => {
    const m = /sessions\/([0-9a-f-]{36})/.exec(content);
    if (!m) throw new Error(`no session link in: ${content}`);
    return m[1]!;
  };

  /** /start as Matt, `during`, `n` lines, /stop: the lines his live view showed. */
  async function record(n: number, during: (tid: string) => Promise<void>) {
    const started = await rig.discord.command(guild.id, '5001', '2001', 'start');
    const tid = sessionOf(started.content);
    await waitFor(
      async () => (await apiCall(rig.system.url, 'GET', `/transcripts/${tid}`, owner)).status === 200,
    );
    const viewer = new LiveViewer(rig.system.url, tid, owner);
    try {
      await during(tid);
      await viewer.untilLines(n, 30_000);
      const stopped = await rig.discord.command(guild.id, '5001', '2001', 'stop');
      expect(stopped.content).toContain('Recording stopped');
      await viewer.untilEnded(30_000);
      return {
        tid,
        lines: viewer
          .ordered()
          .sort((a, b) => a.start_seconds - b.start_seconds)
          .map((l) => [l.speaker_info?.displayName, l.text]),
      };
    } finally {
      viewer.close();
    }
  }

  it('lists only the servers the user manages; another server is 404; bad settings are 400 and change nothing', async () => {
    const list = await apiCall<{ id: string; name: string }[]>(
      rig.system.url,
      'GET',
      '/discord/servers',
      owner,
    );
    expect(list.status).toBe(200);
    expect(list.body.map((g) => g.id)).toEqual([guild.id]);
    for (const id of [otherGuild, '123456789012345678', 'not-a-guild']) {
      expect((await apiCall(rig.system.url, 'GET', settingsUrl(id), owner)).status).toBe(404);
      expect(
        (await apiCall(rig.system.url, 'PUT', settingsUrl(id), owner, { consent_mode: 'opt_in' })).status,
      ).toBe(404);
    }
    const before = await apiCall<ServerSettings>(rig.system.url, 'GET', settingsUrl(guild.id), owner);
    expect(before.body).toMatchObject({ consent_mode: 'announce', auto_record: [], language: null });
    const rule = {
      channel_id: '5003',
      min_members: 3,
      group_id: null,
      owner_discord_id: null,
      from: null,
      to: null,
      timezone: 'UTC',
      empty_minutes: 3,
    };
    const bad: [unknown, RegExp][] = [
      [{ consent_mode: 'sometimes' }, /consent_mode/],
      [{ auto_record: [{ ...rule, timezone: 'Mars/Olympus' }] }, /time zone/],
      [{ auto_record: [{ ...rule, from: '20:00' }] }, /start and an end time/],
      [{ auto_record: [rule, rule] }, /already watches/],
      [{ default_group_id: '00000000-0000-4000-8000-000000000000' }, /no group of yours/],
      [{ language: 'English please' }, /language/],
    ];
    for (const [body, message] of bad) {
      const res = await apiCall<{ message?: string; error?: string }>(
        rig.system.url,
        'PUT',
        settingsUrl(guild.id),
        owner,
        body,
      );
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res.body)).toMatch(message);
    }
    const after = await apiCall<ServerSettings>(rig.system.url, 'GET', settingsUrl(guild.id), owner);
    expect(after.body).toEqual(before.body);
  });

  it("offers the server's channels and roles by name, follows a new channel, and is 404 for a server the user does not manage", async () => {
    const directory = async () =>
      (await apiCall<GuildDirectory>(rig.system.url, 'GET', `/discord/servers/${guild.id}/directory`, owner))
        .body;
    await waitFor(async () => (await directory()).updated_at !== null, 30_000);
    const known = await directory();
    expect(known.channels).toEqual([
      { id: '5001', name: 'table-talk', kind: 'text' },
      { id: '5002', name: 'Tavern', kind: 'voice' },
      { id: '5003', name: 'Weekly', kind: 'voice' },
    ]);
    // Not @everyone, not a role an integration manages.
    expect(known.roles).toEqual([{ id: '6001', name: 'Game Master' }]);
    rig.discord.addChannel(guild.id, { id: '5004', name: 'Dungeon', type: 2 });
    await waitFor(async () => (await directory()).channels.some((c) => c.name === 'Dungeon'), 30_000);
    for (const id of [otherGuild, '123456789012345678']) {
      const res = await apiCall(rig.system.url, 'GET', `/discord/servers/${id}/directory`, owner);
      expect(res.status).toBe(404);
    }
  });

  it('in opt-in mode (set on the web, no restart) captures only who pressed Record me; a late joiner gets the notice and is not captured before pressing it', async () => {
    const put = await apiCall<ServerSettings>(rig.system.url, 'PUT', settingsUrl(guild.id), owner, {
      consent_mode: 'opt_in',
    });
    expect(put.status).toBe(200);
    expect(put.body.consent_mode).toBe('opt_in');
    // The bot has it without a restart.
    await waitFor(async () =>
      (await rig.discord.command(guild.id, '5001', '2002', 'status')).content.includes('opted in'),
    );
    await table.join('2001');
    await table.join('2002');
    const turns: Turn[] = [
      { speaker: matt, text: 'Nobody should hear the game master' },
      { speaker: laura, text: 'I pressed the button so keep this' },
      { speaker: travis, text: 'This part must not be kept' },
      { speaker: travis, text: 'Now I agreed to be recorded' },
    ];
    const spoken = await table.prepare(turns);
    // Only what is captured reaches the provider: Laura's line and Travis's after he pressed.
    rig.deepgram.script([spoken[1]!, spoken[3]!]);
    const streamsBefore = rig.deepgram.streams.length;
    const messagesBefore = rig.discord.messages.length;
    const { lines } = await record(2, async () => {
      const announcement = rig.discord.messages
        .slice(messagesBefore)
        .find((m) => m.content.includes('Recording started'))!;
      expect(announcement.channelId).toBe('5001');
      expect(announcement.content).toContain('Only members who press Record me are recorded');
      expect(announcement.buttons).toEqual([`consent:in:${guild.id}`, `consent:out:${guild.id}`]);
      // The recording shows in the bot's name.
      expect(rig.discord.nicks.at(-1)).toEqual({ guildId: guild.id, nick: '🔴 REC Chronicler' });
      const pressed = await rig.discord.press(guild.id, '5001', '2002', `consent:in:${guild.id}`);
      expect(pressed.ephemeral).toBe(true);
      expect(pressed.content).toContain('on the record');
      await table.play(spoken.slice(0, 2), { pauseSeconds: 1.2 });
      // Travis joins mid-session: a DM with the buttons, and nothing of his until he presses.
      await table.join('2003');
      await waitFor(() => rig.discord.dmChannel('2003') !== null, 20_000);
      const dm = rig.discord.dmChannel('2003')!;
      await waitFor(() => rig.discord.messages.some((m) => m.channelId === dm));
      const notice = rig.discord.messages.find((m) => m.channelId === dm)!;
      expect(notice.content).toContain('not** recorded unless you press Record me');
      expect(notice.buttons).toContain(`consent:in:${guild.id}`);
      await table.play([spoken[2]!]);
      await delay(1500);
      const accepted = await rig.discord.press(guild.id, dm, '2003', `consent:in:${guild.id}`);
      expect(accepted.content).toContain('on the record');
      await table.play([spoken[3]!]);
    });
    expect(lines).toEqual([
      ['Laura', turns[1]!.text],
      ['Travis', turns[3]!.text],
    ]);
    // Matt's voice and Travis's before he pressed never reached the provider.
    expect(rig.deepgram.streams.length - streamsBefore).toBe(2);
    // The nickname is put back once the recording ends.
    await waitFor(() => rig.discord.nicks.at(-1)?.nick === null);
    await table.leave('2003');
  }, 180_000);

  it('in announce mode (set with /settings) tells a late joiner with closed DMs in the channel; /offrecord is stored', async () => {
    const denied = await rig.discord.command(guild.id, '5001', '2002', 'settings show');
    expect(denied.ephemeral).toBe(true);
    expect(denied.content).toContain('manage this server');
    const set = await rig.discord.command(
      guild.id,
      '5001',
      '2001',
      'settings consent',
      { mode: 'announce' },
      MANAGE_GUILD,
    );
    expect(set.ephemeral).toBe(true);
    expect(set.content).toContain('Saved');
    expect(set.content).toContain('announce (everyone unless they opt out)');
    const web = await apiCall<ServerSettings>(rig.system.url, 'GET', settingsUrl(guild.id), owner);
    expect(web.body.consent_mode).toBe('announce');

    rig.discord.closedDms.add('2004');
    const turns: Turn[] = [
      { speaker: matt, text: 'Welcome back to the table' },
      { speaker: sam, text: 'Sorry I am late everyone' },
    ];
    const spoken = await table.prepare(turns);
    rig.deepgram.script(spoken);
    const messagesBefore = rig.discord.messages.length;
    const { lines } = await record(2, async () => {
      await table.play([spoken[0]!]);
      await table.join('2004');
      await waitFor(() =>
        rig.discord.messages.slice(messagesBefore).some((m) => m.content.startsWith('<@2004>')),
      );
      const notice = rig.discord.messages.slice(messagesBefore).find((m) => m.content.startsWith('<@2004>'))!;
      expect(notice.channelId).toBe('5001');
      expect(notice.content).toContain('Your voice is recorded from now on');
      expect(notice.buttons).toContain(`consent:out:${guild.id}`);
      await table.play([spoken[1]!]);
    });
    expect(lines).toEqual(turns.map((t) => [t.speaker.displayName, t.text]));
    await table.leave('2004');

    const off = await rig.discord.command(guild.id, '5001', '2002', 'offrecord');
    expect(off.content).toContain('off the record');
    const stored = await call(rig.system.platform!.bus, memberConsentsRpc, { guild_id: guild.id });
    expect(stored.out).toEqual(['2002']);
    expect(stored.in).toEqual(['2003']);
  }, 180_000);

  it('auto-records when the third member joins the channel, and stops once it has been empty', async () => {
    const set = await rig.discord.command(
      guild.id,
      '5001',
      '2001',
      'settings autorecord',
      { channel: '<#5003>', members: '3', empty: '0.05' },
      MANAGE_GUILD,
    );
    expect(set.content).toContain('Saved');
    expect(set.content).toContain('<#5003> from 3 members');
    // Everyone out of the Tavern first: each member has one voice client.
    await table.close();
    const weekly = voiceTable(rig.discord, guild.id, '5003');
    try {
      const messagesBefore = rig.discord.messages.length;
      await weekly.join('2001');
      await weekly.join('2002');
      // Two are not enough: the bot is not drawn in (a status round trip orders it after their joins).
      await rig.discord.command(guild.id, '5001', '2001', 'status');
      expect(rig.discord.botChannel(guild.id)).not.toBe('5003');
      await weekly.join('2003');
      await waitFor(() => rig.discord.botChannel(guild.id) === '5003', 30_000);
      await waitFor(() =>
        rig.discord.messages.slice(messagesBefore).some((m) => m.content.includes('Recording started')),
      );
      const announcement = rig.discord.messages
        .slice(messagesBefore)
        .find((m) => m.content.includes('Recording started'))!;
      expect(announcement.content).toContain('by auto-record');
      expect(announcement.content).toContain("<@2001>'s Chronicler session");
      await weekly.leave('2001');
      await weekly.leave('2002');
      await weekly.leave('2003');
      await waitFor(
        () => rig.discord.messages.slice(messagesBefore).some((m) => m.content.includes('has been empty')),
        60_000,
      );
      const stopped = rig.discord.messages
        .slice(messagesBefore)
        .find((m) => m.content.includes('has been empty'))!;
      const tid = sessionOf(stopped.content);
      await waitFor(() => rig.discord.botChannel(guild.id) === null, 30_000);
      // The bot's end goes out on the bus; the transcript service stores it on its own time.
      await waitFor(
        async () =>
          (await apiCall<Transcript>(rig.system.url, 'GET', `/transcripts/${tid}`, owner)).body.status ===
          'ended',
        30_000,
      );
      const t = await apiCall<Transcript>(rig.system.url, 'GET', `/transcripts/${tid}`, owner);
      expect(t.status).toBe(200);
      expect(t.body.status).toBe('ended');
    } finally {
      await weekly.close();
    }
  }, 180_000);
});

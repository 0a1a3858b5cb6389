import type { AudioTrack, HealthResponse, Transcript, TranscriptListItem } from '@chronicler/contracts';
import { createLogger, startService, type RunningService } from '@chronicler/kit';
import voiceBot from '@chronicler/voice-bot';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { busSink } from '@chronicler/voice-bot/replay';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeepgramLivePeer, type DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import {
  ADMINISTRATOR,
  guildIdForShard,
  startDiscordPeer,
  type DiscordPeer,
  type PeerGuild,
} from '../peers/discord.ts';
import { startOAuthPeer, type OAuthPeer } from '../peers/oauth.ts';
import { apiCall } from '../support/api.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { freePort, startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';
import { signInWithDiscord as signInAs } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');

// The bot's Discord side runs for real (discord.js against the local Discord peer: gateway,
// slash commands, interaction replies) and so does its voice: its @discordjs/voice joins the
// peer's voice server (voice gateway v8 over TLS, UDP/RTP), where each member is a second
// @discordjs/voice client playing espeak-ng speech. What they say goes through the live
// pipeline to the Deepgram peer, and the owner watches the transcript over the socket.
describe.runIf(hasEspeak)(`the Discord voice bot against the Discord peer (${testMode} mode)`, () => {
  let system: TestSystem;
  let discord: DiscordPeer;
  let deepgram: DeepgramLivePeer;
  let oauth: OAuthPeer;
  let recordings: string;
  let publicUrl: string;
  const SHARDS = 2;
  const guild: PeerGuild = {
    id: guildIdForShard(0, SHARDS),
    name: 'Vox Machina',
    ownerId: '2001',
    channels: [
      { id: '3001', name: 'table-talk', type: 0 },
      { id: '3002', name: 'Tavern', type: 2 },
    ],
    members: [
      { id: '2001', username: 'matt', nick: 'Matt' },
      { id: '2002', username: 'laura', nick: 'Laura' },
      { id: '2003', username: 'travis', nick: 'Travis' },
      { id: '2004', username: 'sam', nick: 'Sam' },
      { id: '2005', username: 'dicebot', bot: true },
    ],
  };
  // A guild Discord routes to the other shard: held by a second replica.
  const guild2: PeerGuild = {
    id: guildIdForShard(1, SHARDS),
    name: 'Mighty Nein',
    ownerId: '2001',
    channels: [
      { id: '3101', name: 'general', type: 0 },
      { id: '3102', name: 'Xhorhas', type: 2 },
    ],
    members: [
      { id: '2001', username: 'matt', nick: 'Matt' },
      { id: '2002', username: 'laura', nick: 'Jester' },
    ],
  };
  const tokens = new Map<string, string>();
  /** The services' log lines (warnings and worse, as TEST_LOG_LEVEL leaves them by default). */
  const logLines: string[] = [];
  let secondShard: RunningService | null = null;
  let table: VoiceTable;
  let table2: VoiceTable;

  /** Signs in through the OAuth peer as that Discord user: the account the bot matches. */
  const signInWithDiscord = (id: string, username: string): Promise<string> =>
    signInAs(system, oauth, { id, username });

  const sessionIdOf = (content: string): string => {
    const m = new RegExp(`${publicUrl}/sessions/([0-9a-f-]{36})`).exec(content);
    if (!m) throw new Error(`no session link in: ${content}`);
    return m[1]!;
  };

  beforeAll(async () => {
    // The transcript service reads it from the process environment (see stale-sessions.ts).
    process.env.LIVE_SESSION_STALE_MINUTES = String(6 / 60);
    discord = await startDiscordPeer();
    discord.addGuild(guild);
    discord.addGuild(guild2);
    deepgram = await startDeepgramLivePeer({ silenceMs: 600 });
    oauth = await startOAuthPeer();
    recordings = mkdtempSync(path.join(os.tmpdir(), 'chronicler-bot-'));
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    system = await startSystem({
      env: {
        ...oauth.env('discord'),
        ...deepgram.env(),
        ...discord.env(),
        PORT: String(port),
        PUBLIC_URL: publicUrl,
        RATE_LIMIT_SIGN_IN_MAX: '1000',
        SHARD_COUNT: String(SHARDS),
        SHARD_IDS: '0',
        RECORDINGS_DIR: recordings,
        VOICE_WATCHDOG_SECONDS: '1.5',
      },
      logDestination: { write: (line: string) => void logLines.push(line) },
    });
    tokens.set('2001', await signInWithDiscord('2001', 'matt'));
    tokens.set('2002', await signInWithDiscord('2002', 'laura'));
    await discord.untilGuildReady(guild.id);
    table = voiceTable(discord, guild.id, '3002');
    table2 = voiceTable(discord, guild2.id, '3102');
    // The bot connects in the background (Discord's absence must not hold up the system).
    await waitFor(() => discord.commands.has('global'), 30_000);
  }, 120_000);

  afterAll(async () => {
    delete process.env.LIVE_SESSION_STALE_MINUTES;
    await table?.close();
    await table2?.close();
    await secondShard?.stop();
    await system?.stop();
    await discord?.close();
    await deepgram?.close();
    await oauth?.close();
    if (recordings) rmSync(recordings, { recursive: true, force: true });
  });

  it('registers its slash commands at start', () => {
    expect(
      discord.commands
        .get('global')
        ?.map((c) => c.name)
        .sort(),
    ).toEqual(
      [
        'ask',
        'help',
        'join',
        'leave',
        'mydata',
        'offrecord',
        'onrecord',
        'recap',
        'recording',
        'settings',
        'start',
        'status',
        'stop',
      ].sort(),
    );
    const start = discord.commands.get('global')!.find((c) => c.name === 'start')!;
    expect(start.options).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'group', autocomplete: true, required: false }),
      ]),
    );
  });

  it('answers /help, and /start from someone outside a voice channel, only to the caller', async () => {
    const help = await discord.command(guild.id, '3001', '2004', 'help');
    expect(help.ephemeral).toBe(true);
    expect(help.content).toContain('/start [group]');
    expect(help.content).toContain(`${publicUrl}/login`);
    const start = await discord.command(guild.id, '3001', '2001', 'start');
    expect(start.ephemeral).toBe(true);
    expect(start.content).toBe('Join a voice channel first, then run `/start` again.');
  });

  it('records three speakers into the owner’s live transcript; /offrecord silences one; /stop ends and it is summarised', async () => {
    for (const id of ['2001', '2002', '2003', '2005']) await table.join(id);
    const matt = { key: '2001', displayName: 'Matt', userId: '2001' };
    const laura = { key: '2002', displayName: 'Laura', userId: '2002' };
    const travis = { key: '2003', displayName: 'Travis', userId: '2003' };
    const dicebot = { key: '2005', displayName: 'dicebot', userId: '2005' };
    const part1: Turn[] = [
      { speaker: matt, text: 'Welcome back to the city of Kraghammer' },
      { speaker: laura, text: 'Vex draws her bow and looks around' },
      { speaker: dicebot, text: 'Rolling twenty sided dice' },
      { speaker: travis, text: 'Grog wants to punch the door' },
    ];
    const part2: Turn[] = [
      { speaker: laura, text: 'This is off the record please' },
      { speaker: matt, text: 'Roll for perception everyone' },
    ];
    // The bot is not recorded, so its line is not in the script the speech peer recognises.
    const [s1, s2] = await Promise.all([table.prepare(part1), table.prepare(part2)]);
    deepgram.script([s1[0]!, s1[1]!, s1[3]!, s2[1]!]);

    const streamsBefore = deepgram.streams.length;
    const started = await discord.command(guild.id, '3001', '2001', 'start');
    expect(started.ephemeral).toBe(true);
    expect(started.content).toContain('Recording <#3002> as “Live Transcription”');
    const tid = sessionIdOf(started.content);
    expect(discord.botChannel(guild.id)).toBe('3002');
    // Announced to everyone in the channel it was started from.
    expect(discord.messages.find((m) => m.channelId === '3001')?.content).toMatch(
      /Recording started.*<@2001>.*\/offrecord/s,
    );
    await discord.untilVoiceConnections(guild.id, 1);
    const owner = tokens.get('2001')!;
    await waitFor(
      async () => (await apiCall(system.url, 'GET', `/transcripts/${tid}`, owner)).status === 200,
    );
    const viewer = new LiveViewer(system.url, tid, owner);
    try {
      await table.play(s1, { pauseSeconds: 1.2 });
      await viewer.untilLines(3, 30_000);

      const status = await discord.command(guild.id, '3001', '2002', 'status');
      expect(status.ephemeral).toBe(true);
      expect(status.content).toContain(`${publicUrl}/sessions/${tid}`);
      expect(status.content).toMatch(/Heard: Matt, Laura, Travis/);

      const off = await discord.command(guild.id, '3001', '2002', 'offrecord');
      expect(off.ephemeral).toBe(true);
      expect(off.content).toContain('off the record');
      await table.play(s2, { pauseSeconds: 1.2 });
      await viewer.untilLines(4, 30_000);

      // Only the owner (or a server manager) stops it.
      const refused = await discord.command(guild.id, '3001', '2003', 'stop');
      expect(refused.ephemeral).toBe(true);
      expect(refused.content).toContain('Only <@2001>');
      const stopped = await discord.command(guild.id, '3001', '2001', 'stop');
      expect(stopped.ephemeral).toBe(false);
      expect(stopped.content).toContain('Recording stopped');
      expect(stopped.content).toContain(`${publicUrl}/sessions/${tid}`);
      await viewer.untilEnded(30_000);

      const lines = viewer.ordered();
      expect(lines.map((l) => l.text)).toEqual([
        part1[0]!.text,
        part1[1]!.text,
        part1[3]!.text,
        part2[1]!.text,
      ]);
      expect(lines.map((l) => l.speaker_info?.displayName)).toEqual(['Matt', 'Laura', 'Travis', 'Matt']);
      expect(lines.map((l) => l.speaker_info?.user_id)).toEqual(['2001', '2002', '2003', '2001']);
      // Nothing of Laura's while she was off the record reached the provider, nor the bot's voice.
      // One stream each for Matt, Laura and Travis: none for the bot's voice.
      expect(deepgram.streams.length - streamsBefore).toBe(3);
      // Each recorded member's track is kept with the session (handed over by the bot once it
      // ended): Laura's too, with what she said on the record; none for the dice bot.
      let tracks: AudioTrack[] = [];
      await waitFor(async () => {
        tracks = (await apiCall<AudioTrack[]>(system.url, 'GET', `/transcripts/${tid}/audio/tracks`, owner))
          .body;
        return tracks.length >= 3;
      }, 30_000);
      expect(tracks.map((t) => t.speaker).sort()).toEqual(['Laura', 'Matt', 'Travis']);
      expect(tracks.find((t) => t.speaker === 'Laura')!.size).toBeGreaterThan(1000);

      const stored = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${tid}`, owner);
      expect(stored.body.status).toBe('ended');
      expect(stored.body.name).toBe('Live Transcription');
      await waitFor(async () => {
        const t = await apiCall<TranscriptListItem>(system.url, 'GET', `/transcripts/${tid}`, owner);
        return t.body.summary_status === 'done' && t.body.summary.length > 0;
      }, 30_000);
      const state = JSON.parse(readFileSync(path.join(recordings, tid, 'session.json'), 'utf8')) as {
        ended_at: string | null;
        paused: string[];
      };
      expect(state.ended_at).not.toBeNull();
      expect(state.paused).toEqual(['2002']);
    } finally {
      viewer.close();
    }
    const on = await discord.command(guild.id, '3001', '2002', 'onrecord');
    expect(on.content).toContain('on the record');
  }, 180_000);

  it('tells someone without a Chronicler account to sign in, and records nothing', async () => {
    await table.join('2004');
    const before = (
      await apiCall<{ items: unknown[] }>(system.url, 'GET', '/transcripts', tokens.get('2001')!)
    ).body;
    const reply = await discord.command(guild.id, '3001', '2004', 'start');
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toBe(
      `You need a Chronicler account to record: Sign in with Discord at ${publicUrl}/login, then run \`/start\` again. Nothing was recorded.`,
    );
    const status = await discord.command(guild.id, '3001', '2004', 'status');
    expect(status.content).toMatch(/not recording/);
    const after = (
      await apiCall<{ items: unknown[] }>(system.url, 'GET', '/transcripts', tokens.get('2001')!)
    ).body;
    expect(after).toEqual(before);
  });

  it('files the session in the owner’s group named in /start, offers their groups, and says when none matches', async () => {
    const owner = tokens.get('2001')!;
    const created = await apiCall<{ id: string }>(system.url, 'POST', '/groups', owner, {
      name: 'Exandria Unlimited',
    });
    expect(created.status).toBeLessThan(300);
    await apiCall(system.url, 'POST', '/groups', owner, { name: 'One-shots' });
    // Another user's group of the same name is never offered nor used.
    await apiCall(system.url, 'POST', '/groups', tokens.get('2002')!, { name: 'Exandria Secret' });

    expect(await discord.autocomplete(guild.id, '3001', '2001', 'exa')).toEqual(['Exandria Unlimited']);
    expect((await discord.autocomplete(guild.id, '3001', '2001', '')).sort()).toEqual(
      ['Exandria Unlimited', 'One-shots'].sort(),
    );
    expect(await discord.autocomplete(guild.id, '3001', '2004', '')).toEqual([]);

    const none = await discord.command(guild.id, '3001', '2001', 'start', { group: 'Exandria Secret' });
    expect(none.content).toContain('You have no group named “Exandria Secret”');
    expect(none.content).toContain('“Exandria Unlimited”');
    expect(none.content).toContain('Nothing was recorded');

    const turns = await table.prepare([
      {
        speaker: { key: '2003', displayName: 'Travis', userId: '2003' },
        text: 'The party enters the tavern',
      },
    ]);
    deepgram.script(turns);
    const started = await discord.command(guild.id, '3001', '2001', 'start', {
      group: 'exandria unlimited',
      name: 'Episode 12',
    });
    expect(started.content).toContain('as “Episode 12” in your group “Exandria Unlimited”');
    const tid = sessionIdOf(started.content);
    await waitFor(
      async () => (await apiCall(system.url, 'GET', `/transcripts/${tid}`, owner)).status === 200,
    );
    await table.play(turns);
    // /leave by a server manager stops (and saves) as well.
    const left = await discord.command(guild.id, '3001', '2004', 'leave', {}, ADMINISTRATOR);
    expect(left.content).toContain('Left the voice channel');
    expect(left.content).toContain(tid);
    expect(discord.botChannel(guild.id)).toBeNull();
    await waitFor(async () => {
      const t = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${tid}`, owner);
      return t.body.status === 'ended';
    }, 30_000);
    const t = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${tid}`, owner);
    expect(t.body.group_id).toBe(created.body.id);
    expect(t.body.name).toBe('Episode 12');
    expect(t.body.content).toMatch(/Travis: The party enters the tavern/);
  }, 120_000);

  it('rejoins when someone speaks and nothing decrypts (relayed with a key the bot was never given), with a log line and a metric, and keeps the session', async () => {
    const owner = tokens.get('2001')!;
    const travis = { key: '2003', displayName: 'Travis', userId: '2003' };
    const turns = await table.prepare([
      { speaker: travis, text: 'I check the door for traps' },
      { speaker: travis, text: 'Nothing happens at all here' },
      { speaker: travis, text: 'I open the chest slowly' },
    ]);
    deepgram.script([turns[0]!, turns[2]!]);
    const started = await discord.command(guild.id, '3001', '2001', 'start');
    const tid = sessionIdOf(started.content);
    const connections = discord.voiceConnections(guild.id);
    await waitFor(
      async () => (await apiCall(system.url, 'GET', `/transcripts/${tid}`, owner)).status === 200,
    );
    await table.play([turns[0]!]);
    // The voice server seals what it relays with a wrong key: the packets reach the bot (its
    // receiver marks the speaker as speaking) and fail AEAD authentication in @discordjs/voice.
    // One long run of speech, played until the bot has rejoined (the watchdog needs 1.5 s).
    const mumble = { ...turns[1]!, pcm: Buffer.concat(Array.from({ length: 4 }, () => turns[1]!.pcm)) };
    discord.voice.faults.wrongKey = true;
    try {
      const rejoined = discord.untilVoiceConnections(guild.id, connections + 1, 30_000);
      const heard = new AbortController();
      rejoined.then(
        () => heard.abort(),
        () => heard.abort(),
      );
      while (!heard.signal.aborted) await table.play([mumble], { signal: heard.signal });
      await rejoined;
    } finally {
      discord.voice.faults.wrongKey = false;
    }
    await table.play([turns[2]!]);
    const stopped = await discord.command(guild.id, '3001', '2001', 'stop');
    expect(stopped.content).toContain(tid);
    await waitFor(async () => {
      const t = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${tid}`, owner);
      return t.body.status === 'ended';
    }, 30_000);
    const t = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${tid}`, owner);
    expect(t.body.content.split('\n')).toEqual([
      expect.stringMatching(/Travis: I check the door for traps$/),
      expect.stringMatching(/Travis: I open the chest slowly$/),
    ]);
    const watchdogLines = logLines
      .map((l) => JSON.parse(l) as { msg: string; userId?: string; guildId?: string; level: string })
      .filter((l) => l.msg.startsWith('voice watchdog: a member is speaking but nothing decodes'));
    expect(watchdogLines.length).toBeGreaterThanOrEqual(1);
    expect(watchdogLines[0]).toMatchObject({ userId: '2003', guildId: guild.id, level: 'warn' });
    if (system.opsUrl) {
      const metrics = await (await fetch(`${system.opsUrl}/metrics`)).text();
      expect(metrics).toMatch(/chronicler_voice_watchdog_rejoins_total [1-9]/);
    }
  }, 120_000);

  it('runs as two shards: each replica takes only the guilds Discord routes to it', async () => {
    expect(discord.identifies.find((i) => i.shard[0] === 0)).toEqual({ shard: [0, 2], guilds: [guild.id] });
    secondShard = await startService(voiceBot, system.platform!, {
      logger: createLogger(null, { level: 'warn' }),
      env: { ...system.env, SHARD_IDS: '1', SHARD_COUNT: '2' },
    });
    await discord.untilGuildReady(guild2.id);
    expect(discord.identifies.find((i) => i.shard[0] === 1)).toEqual({ shard: [1, 2], guilds: [guild2.id] });

    await table2.join('2001');
    await table2.join('2002');
    const turns = await table2.prepare([
      {
        speaker: { key: '2002', displayName: 'Jester', userId: '2002' },
        text: 'Jester casts a spell on the cart',
      },
    ]);
    deepgram.script(turns);
    const started = await discord.command(guild2.id, '3101', '2001', 'start', { name: 'Shard one' });
    const tid = sessionIdOf(started.content);
    const owner = tokens.get('2001')!;
    await waitFor(
      async () => (await apiCall(system.url, 'GET', `/transcripts/${tid}`, owner)).status === 200,
    );
    await table2.play(turns);
    await discord.command(guild2.id, '3101', '2001', 'stop');
    await waitFor(async () => {
      const t = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${tid}`, owner);
      return t.body.status === 'ended';
    }, 30_000);
    const t = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${tid}`, owner);
    // The member's name in that guild, not in the other.
    expect(t.body.content).toMatch(/Jester: Jester casts a spell on the cart$/);
  }, 120_000);

  it('ends a live session whose bot vanished once it goes stale, and leaves a recording the bot holds alone', async () => {
    const owner = tokens.get('2001')!;
    // A silent table: the bot holds this one (its heartbeat), nobody speaks.
    await table.join('2001');
    const held = sessionIdOf((await discord.command(guild.id, '3001', '2001', 'start')).content);
    // A pipeline that started a session and died without a word.
    const sink = busSink(system.platform!.bus);
    const ownerId = (await apiCall<{ user: { id: string } }>(system.url, 'GET', '/auth/user', owner)).body
      .user.id;
    const { transcriptId: vanished } = await sink.start({ owner_id: ownerId, name: 'Vanished' });
    await waitFor(
      async () => (await apiCall(system.url, 'GET', `/transcripts/${vanished}`, owner)).status === 200,
    );
    await waitFor(
      async () =>
        (await apiCall<Transcript>(system.url, 'GET', `/transcripts/${vanished}`, owner)).body.status ===
        'ended',
      30_000,
      250,
    );
    const t = (await apiCall<Transcript>(system.url, 'GET', `/transcripts/${vanished}`, owner)).body;
    expect(t.transcription_error).toBe(
      'Ended after 6 seconds without activity: the voice bot stopped sending.',
    );
    expect((await apiCall<Transcript>(system.url, 'GET', `/transcripts/${held}`, owner)).body.status).toBe(
      'active',
    );
    await discord.command(guild.id, '3001', '2001', 'stop');
  }, 60_000);

  it('reports itself up in /api/health', async () => {
    const body = (await (await fetch(`${system.url}/api/health`)).json()) as HealthResponse;
    expect(body.services.find((s) => s.name === 'voice-bot')).toMatchObject({ status: 'up' });
  });
});

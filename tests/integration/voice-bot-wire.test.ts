import type { Transcript } from '@chronicler/contracts';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeepgramLivePeer, type DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { MODES, type EncryptionMode } from '../peers/discord-voice/rtp.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, startDiscordPeer, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { startOAuthPeer, type OAuthPeer } from '../peers/oauth.ts';
import { apiCall } from '../support/api.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { freePort, startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';
import { signInWithDiscord } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');

// The bot's unmodified @discordjs/voice against the Discord peer's voice server (voice gateway
// v8 over TLS, UDP with IP discovery, RTP in both AEAD modes), every member a second
// @discordjs/voice client playing espeak-ng speech: members in turn and overlapping, one joining
// mid-session, and the faults of the wire (loss and reordering, a dropped socket, 4015, a voice
// server move). The owner's live transcript has each utterance once, under the right name.
describe.runIf(hasEspeak)(`the voice bot on Discord's voice protocol (${testMode} mode)`, () => {
  let system: TestSystem;
  let discord: DiscordPeer;
  let deepgram: DeepgramLivePeer;
  let oauth: OAuthPeer;
  let table: VoiceTable;
  let owner: string;
  let recordings: string;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 28),
    name: 'Wire Table',
    ownerId: '2001',
    channels: [
      { id: '6001', name: 'table-talk', type: 0 },
      { id: '6002', name: 'Tavern', type: 2 },
    ],
    members: [
      { id: '2001', username: 'matt', nick: 'Matt' },
      { id: '2002', username: 'laura', nick: 'Laura' },
      { id: '2003', username: 'travis', nick: 'Travis' },
    ],
  };
  const matt = { key: '2001', displayName: 'Matt', userId: '2001' };
  const laura = { key: '2002', displayName: 'Laura', userId: '2002' };
  const travis = { key: '2003', displayName: 'Travis', userId: '2003' };

  beforeAll(async () => {
    discord = await startDiscordPeer({ voiceHeartbeatMs: 1000 });
    discord.addGuild(guild);
    deepgram = await startDeepgramLivePeer({ silenceMs: 600 });
    oauth = await startOAuthPeer();
    recordings = mkdtempSync(path.join(os.tmpdir(), 'chronicler-wire-'));
    const port = await freePort();
    system = await startSystem({
      env: {
        ...oauth.env('discord'),
        ...deepgram.env(),
        ...discord.env(),
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        RECORDINGS_DIR: recordings,
      },
    });
    owner = await signInWithDiscord(system, oauth, { id: '2001', username: 'matt' });
    await discord.untilGuildReady(guild.id);
    await waitFor(() => discord.commands.has('global'), 30_000);
    table = voiceTable(discord, guild.id, '6002');
    await table.join('2001');
    await table.join('2002');
  }, 120_000);

  afterAll(async () => {
    await table?.close();
    await system?.stop();
    await discord?.close();
    await deepgram?.close();
    await oauth?.close();
    if (recordings) rmSync(recordings, { recursive: true, force: true });
  });

  const botEvents = () => discord.voice.events.filter((e) => e.userId === discord.botUser.id);

  /** /start, the owner's live view, `during`, `n` lines seen, /stop; the lines the owner saw. */
  async function record(n: number, during: () => Promise<void>) {
    const started = await discord.command(guild.id, '6001', '2001', 'start');
    const tid = /sessions\/([0-9a-f-]{36})/.exec(started.content)?.[1];
    if (!tid) throw new Error(`no session in: ${started.content}`);
    await waitFor(
      async () => (await apiCall(system.url, 'GET', `/transcripts/${tid}`, owner)).status === 200,
    );
    const viewer = new LiveViewer(system.url, tid, owner);
    try {
      await during();
      await viewer.untilLines(n, 30_000);
      const stopped = await discord.command(guild.id, '6001', '2001', 'stop');
      expect(stopped.content).toContain('Recording stopped');
      await viewer.untilEnded(30_000);
      const transcript = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${tid}`, owner);
      return {
        tid,
        // In order of when each utterance began (an overlapped one may be final first).
        lines: viewer
          .ordered()
          .sort((a, b) => a.start_seconds - b.start_seconds)
          .map((l) => [l.speaker_info?.displayName, l.text]),
        content: transcript.body.content,
      };
    } finally {
      viewer.close();
    }
  }
  const expected = (turns: Turn[]) => turns.map((t) => [t.speaker.displayName, t.text]);

  it.each(MODES)(
    'records members in turn, overlapping, and one joining mid-session, each utterance once under their name (%s)',
    async (mode: EncryptionMode) => {
      discord.voice.modes = [mode];
      const turns: Turn[] = [
        { speaker: matt, text: 'The gates of the city open slowly' },
        { speaker: laura, text: 'Vex keeps her bow drawn' },
        { speaker: matt, text: 'A guard steps forward and raises his hand' },
        { speaker: laura, text: 'I wave back at him' },
        { speaker: travis, text: 'Grog walks in late' },
      ];
      deepgram.script(turns.map((t) => t.text));
      const spoken = await table.prepare(turns);
      const identifies = botEvents().filter((e) => e.kind === 'identify').length;
      const { lines } = await record(turns.length, async () => {
        await table.play(spoken.slice(0, 2), { pauseSeconds: 1.2 });
        await delay(1200);
        // Overlapping: Laura starts while Matt is still speaking.
        await Promise.all([table.play([spoken[2]!]), delay(700).then(() => table.play([spoken[3]!]))]);
        await delay(1200);
        // Travis joins mid-session: the bot learns his SSRC from the voice server's Speaking op.
        await table.join('2003');
        await table.play([spoken[4]!]);
      });
      expect(lines).toEqual(expected(turns));
      // The bot identified once for this session, on the mode the server offered.
      const mine = botEvents()
        .filter((e) => e.kind === 'identify')
        .slice(identifies);
      expect(mine).toHaveLength(1);
      expect(mine[0]!.detail).toEqual({ max_dave_protocol_version: 1 });
      expect(
        botEvents()
          .filter((e) => e.kind === 'select')
          .at(-1)!.detail,
      ).toMatchObject({ mode });
      // Its heartbeats acknowledge the voice server's sequence numbers.
      const acks = botEvents()
        .filter((e) => e.kind === 'heartbeat')
        .map((e) => Number(e.detail!.seq_ack));
      expect(Math.max(...acks)).toBeGreaterThan(0);
      await table.leave('2003');
      // Out of the channel, so that the next /start connects (and picks a mode) afresh.
      await discord.command(guild.id, '6001', '2001', 'leave');
      await waitFor(() => !discord.voice.connected(guild.id).includes(discord.botUser.id));
    },
    120_000,
  );

  it('keeps every audible utterance with 5% packet loss and reordering on the wire', async () => {
    const turns: Turn[] = [
      { speaker: matt, text: 'The storm rolls over the hills' },
      { speaker: laura, text: 'We should find shelter now' },
      { speaker: matt, text: 'There is a cave to the north' },
    ];
    deepgram.script(turns.map((t) => t.text));
    const spoken = await table.prepare(turns);
    const relayedBefore = discord.voice.relayedTo(guild.id, discord.botUser.id);
    Object.assign(discord.voice.faults, { loss: 0.05, reorder: 0.05 });
    try {
      const { lines } = await record(turns.length, () => table.play(spoken, { pauseSeconds: 1.2 }));
      expect(lines).toEqual(expected(turns));
    } finally {
      Object.assign(discord.voice.faults, { loss: 0, reorder: 0 });
    }
    expect(discord.voice.relayedTo(guild.id, discord.botUser.id)).toBeGreaterThan(relayedBefore + 100);
  }, 120_000);

  it.each([
    ['its voice WebSocket dropped mid-session', null],
    ['a 4015 close (voice server crashed)', 4015],
  ] as const)(
    'resumes after %s, and loses no speaker',
    async (_what, code) => {
      const turns: Turn[] = [
        { speaker: laura, text: 'The bridge is out ahead' },
        { speaker: matt, text: 'You hear the river below' },
        { speaker: laura, text: 'I tie a rope to the tree' },
      ];
      deepgram.script(turns.map((t) => t.text));
      const spoken = await table.prepare(turns);
      const bot = discord.botUser.id;
      const before = botEvents().filter((e) => e.kind === 'resume' || e.kind === 'identify').length;
      const { lines } = await record(turns.length, async () => {
        await table.play([spoken[0]!]);
        if (code === null) discord.voice.dropSocket(guild.id, bot);
        else discord.voice.closeSocket(guild.id, bot, code);
        await waitFor(
          () =>
            botEvents()
              .slice(before)
              .some((e) => e.kind === 'resume'),
          20_000,
        );
        await table.play(spoken.slice(1), { pauseSeconds: 1.2 });
      });
      expect(lines).toEqual(expected(turns));
      // A resume, not a new identify: the same voice session and SSRC mapping go on.
      const after = botEvents()
        .filter((e) => e.kind === 'resume' || e.kind === 'identify')
        .slice(before);
      expect(after.map((e) => e.kind)).toEqual(['resume']);
      expect(Number(after[0]!.detail!.seq_ack)).toBeGreaterThan(0);
    },
    120_000,
  );

  it('follows a voice server move (VOICE_SERVER_UPDATE to a new endpoint, 4014 from the old) and keeps recording into the same session', async () => {
    const turns: Turn[] = [
      { speaker: matt, text: 'The tower bell rings twice' },
      { speaker: laura, text: 'That is the signal to move' },
      { speaker: matt, text: 'The doors of the tower open' },
    ];
    deepgram.script(turns.map((t) => t.text));
    const spoken = await table.prepare(turns);
    const old = discord.voice;
    const { lines, content } = await record(turns.length, async () => {
      await table.play([spoken[0]!]);
      const next = await discord.moveVoiceServer(guild.id);
      expect(next.endpoint).not.toBe(old.endpoint);
      await waitFor(
        () => ['2001', '2002', discord.botUser.id].every((id) => next.connected(guild.id).includes(id)),
        20_000,
      );
      await table.play(spoken.slice(1), { pauseSeconds: 1.2 });
    });
    expect(lines).toEqual(expected(turns));
    expect(content.split('\n')).toHaveLength(3);
    expect(old.connected(guild.id)).toEqual([]);
  }, 120_000);
});

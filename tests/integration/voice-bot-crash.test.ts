import type { AudioTrack, Transcript } from '@chronicler/contracts';
import { parseOggPages } from '@chronicler/voice-bot/pipeline';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { guildIdForShard, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { apiCall } from '../support/api.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { testMode, waitFor, type TestSystem } from '../support/system.ts';
import { startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');
const STALE_SECONDS = 15;

// The voice bot as its own process (one process per service, as in the cluster), killed with
// SIGKILL in the middle of a recording: the restarted bot ends that session cleanly from its
// journal and goes on recording (it is still in the channel); killed again and not restarted,
// the transcript service ends the session after LIVE_SESSION_STALE_MINUTES and summarises it.
describe.runIf(hasEspeak && testMode === 'cluster')('the voice bot killed with SIGKILL mid-session', () => {
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
  const killBot = async (): Promise<number> => {
    const bot = system.children.get('voice-bot')!;
    const exited = new Promise((resolve) => bot.once('exit', resolve));
    const at = Date.now();
    bot.kill('SIGKILL');
    await exited;
    return at;
  };

  it('loses at most about a second of audio, ends the session from its journal after a restart, records on, survives a deploy, and goes stale', async () => {
    await table.join('2001');
    await table.join('2003');
    const lines = [
      'Welcome to the stage everyone',
      'Travis rolls a natural twenty',
      'And then the dragon turns toward the party with a terrible roar',
      'We are back after the restart',
      'The bard sings again',
    ];
    deepgram.script(lines);
    const turns = await table.prepare([
      { speaker: matt, text: lines[0]! },
      { speaker: travis, text: lines[1]! },
      { speaker: travis, text: lines[2]! },
      { speaker: matt, text: lines[3]! },
      { speaker: travis, text: lines[4]! },
    ]);
    const started = await discord.command(guild.id, '4001', '2001', 'start', { name: 'Crash night' });
    const tid = /sessions\/([0-9a-f-]{36})/.exec(started.content)![1]!;
    await waitFor(async () => (await transcript(tid)).status === 200, 20_000);
    const viewer = new LiveViewer(system.url, tid, owner);
    try {
      await table.play(turns.slice(0, 2), { pauseSeconds: 1.2 });
      await viewer.untilLines(2, 30_000);
    } finally {
      viewer.close();
    }
    // Killed 2 s into a long line of Travis's.
    const playing = table.play([turns[2]!]);
    await new Promise((r) => setTimeout(r, 2000));
    const killedAt = await killBot();
    await playing;

    const state = JSON.parse(readFileSync(path.join(recordings, tid, 'session.json'), 'utf8')) as {
      started_at: string;
      ended_at: string | null;
    };
    expect(state.ended_at).toBeNull();
    // Travis's recording on disk reaches to within about a second of the kill.
    const ogg = parseOggPages(readFileSync(path.join(recordings, tid, '2003.ogg')));
    const recordedSeconds = Number(ogg.at(-1)!.granule) / 48_000;
    const elapsedAtKill = (killedAt - Date.parse(state.started_at)) / 1000;
    expect(elapsedAtKill - recordedSeconds).toBeLessThanOrEqual(1.3);
    expect(elapsedAtKill - recordedSeconds).toBeGreaterThanOrEqual(-0.3);
    expect((await transcript(tid)).body.status).toBe('active');

    // The bot comes back: the session it left is ended with its lines exactly once...
    const messagesBefore = discord.messages.length;
    await system.spawn!('voice-bot');
    await waitFor(async () => (await transcript(tid)).body.status === 'ended', 60_000, 250);
    const ended = (await transcript(tid)).body;
    expect(ended.content.split('\n')).toEqual([
      expect.stringMatching(/Matt: Welcome to the stage everyone$/),
      expect.stringMatching(/Travis: Travis rolls a natural twenty$/),
    ]);
    expect(ended.transcription_error).toContain('restarted');
    // The tracks the killed bot left on disk are handed over by the new one, then let go.
    const speakersOf = async (id: string) =>
      (await apiCall<AudioTrack[]>(system.url, 'GET', `/transcripts/${id}/audio/tracks`, owner)).body.map(
        (t) => t.speaker,
      );
    await waitFor(async () => (await speakersOf(tid)).length === 2, 30_000);
    expect(await speakersOf(tid)).toEqual(['Matt', 'Travis']);
    await waitFor(() => readdirSync(path.join(recordings, tid)).every((f) => !f.endsWith('.ogg')), 30_000);
    // ...and, still in the channel, it records on into a new session, and says so.
    await waitFor(() => discord.messages.length > messagesBefore, 30_000);
    const notice = discord.messages.slice(messagesBefore).find((m) => m.content.includes('restarted'))!;
    expect(notice.channelId).toBe('4001');
    const next = [...notice.content.matchAll(/sessions\/([0-9a-f-]{36})/g)].map((m) => m[1]!);
    expect(next[0]).toBe(tid);
    const tid2 = next[1]!;
    await waitFor(async () => (await transcript(tid2)).status === 200, 20_000);
    expect((await transcript(tid2)).body.name).toBe('Crash night (continued)');
    await discord.untilVoiceConnections(guild.id, 2, 30_000);
    await table.play([turns[3]!]);
    await waitFor(async () => (await transcript(tid2)).body.content.includes(lines[3]!), 30_000);

    // A deploy (SIGTERM): the session ends cleanly, and the next process records on.
    const bot = system.children.get('voice-bot')!;
    const exited = new Promise<number | null>((resolve) => bot.once('exit', (code) => resolve(code)));
    bot.kill('SIGTERM');
    expect(await exited).toBe(0);
    const deployed = (await transcript(tid2)).body;
    expect(deployed.status).toBe('ended');
    expect(deployed.transcription_error).toBe('');
    expect(deployed.content).toMatch(/Matt: We are back after the restart$/);
    const beforeDeploy = discord.messages.length;
    await system.spawn!('voice-bot');
    // Its track is kept, by the bot that stopped or else by the next one.
    await waitFor(async () => (await speakersOf(tid2)).includes('Matt'), 30_000);
    await waitFor(() => discord.messages.length > beforeDeploy, 30_000);
    const tid3 = [...discord.messages.at(-1)!.content.matchAll(/sessions\/([0-9a-f-]{36})/g)].map(
      (m) => m[1]!,
    )[1]!;
    expect(tid3).toBeDefined();
    await waitFor(async () => (await transcript(tid3)).status === 200, 20_000);
    expect((await transcript(tid3)).body.name).toBe('Crash night (continued)');
    await discord.untilVoiceConnections(guild.id, 3, 30_000);
    await table.play([turns[4]!]);
    await waitFor(async () => (await transcript(tid3)).body.content.includes(lines[4]!), 30_000);

    // Killed again and never restarted: the transcript service ends it once it goes stale.
    await killBot();
    await waitFor(
      async () => (await transcript(tid3)).body.status === 'ended',
      (STALE_SECONDS + 30) * 1000,
      500,
    );
    const stale = (await transcript(tid3)).body;
    expect(stale.transcription_error).toContain('without activity');
    expect(stale.content).toMatch(/Travis: The bard sings again$/);
    await waitFor(async () => {
      const t = (await transcript(tid3)).body;
      return t.summary_status === 'done' && t.summary.length > 0;
    }, 30_000);
    expect(readdirSync(recordings).sort()).toEqual([tid, tid2, tid3].sort());
  }, 240_000);
});

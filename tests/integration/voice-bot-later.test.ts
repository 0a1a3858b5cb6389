import {
  parseTranscriptLines,
  REMOVED_LINE_TEXT,
  TRANSCRIBE_NEEDS_PROVIDER,
  type AudioTrack,
  type Transcript,
} from '@chronicler/contracts';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, startDiscordPeer, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { startOAuthPeer, type OAuthPeer } from '../peers/oauth.ts';
import { startOpenAiPeer, type OpenAiPeer } from '../peers/openai.ts';
import { apiCall } from '../support/api.ts';
import { createTestDatabase, startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';
import { sessionIdIn, signInWithDiscord } from '../support/voice-rig.ts';

// Speech to play (espeak-ng) and to decode the tracks for the transcription peer (ffmpeg).
const hasEspeak = existsSync('/usr/bin/espeak-ng') && existsSync('/usr/bin/ffmpeg');

// With no speech provider the voice bot records a session it cannot transcribe: it ends with no
// lines and each speaker's track kept. The operator then sets an OpenAI-compatible server and
// restarts on the same data; "Transcribe now" turns each track into that speaker's lines, merged
// by time.
describe.runIf(hasEspeak)(
  `"Transcribe now" for a voice-bot session recorded without a provider (${testMode} mode)`,
  () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'voice-later-'));
    const recordings = mkdtempSync(path.join(os.tmpdir(), 'voice-later-rec-'));
    let env: Record<string, string>;
    let dropDb: (() => Promise<void>) | undefined;
    let system: TestSystem | undefined;
    let discord: DiscordPeer;
    let oauth: OAuthPeer;
    let whisper: OpenAiPeer;
    let table: VoiceTable | undefined;
    const guild: PeerGuild = {
      id: guildIdForShard(0, 1, 41),
      name: 'Later Table',
      ownerId: '4001',
      channels: [
        { id: '9001', name: 'table-talk', type: 0 },
        { id: '9002', name: 'Tavern', type: 2 },
      ],
      members: [
        { id: '4001', username: 'matt', nick: 'Matt' },
        { id: '4002', username: 'laura', nick: 'Laura' },
        { id: '4003', username: 'sam', nick: 'Sam' },
      ],
    };
    const matt = { key: '4001', displayName: 'Matt', userId: '4001' };
    const laura = { key: '4002', displayName: 'Laura', userId: '4002' };

    beforeAll(async () => {
      discord = await startDiscordPeer();
      discord.addGuild(guild);
      oauth = await startOAuthPeer();
      whisper = await startOpenAiPeer();
      // espeak-ng pauses briefly at word gaps; one turn is one segment.
      whisper.transcription.silenceMs = 600;
      env = {
        ...oauth.env('discord'),
        ...discord.env(),
        PUBLIC_URL: 'http://chronicler.test',
        RECORDINGS_DIR: recordings,
        SUMMARY_AUTOMATIC: 'false',
        DATA_DIR: dataDir,
        BUS_PREFIX: `t${randomBytes(4).toString('hex')}`,
        AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
        // No provider, whatever the machine's environment says.
        DEEPGRAM_API_KEY: '',
        ASSEMBLYAI_API_KEY: '',
        TRANSCRIPTION_BASE_URL: '',
        SPEECH_PROVIDER: '',
      };
      if (testMode === 'cluster') {
        const db = await createTestDatabase();
        env.DATABASE_URL = db.url;
        dropDb = () => db.drop();
      }
    }, 60_000);

    afterAll(async () => {
      await table?.close();
      await system?.stop();
      await discord?.close();
      await oauth?.close();
      await whisper?.close();
      await dropDb?.();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(recordings, { recursive: true, force: true });
    });

    const start = async (extra: Record<string, string> = {}) => {
      system = await startSystem({ processes: 'one', env: { ...env, ...extra } });
      const owner = await signInWithDiscord(system, oauth, { id: '4001', username: 'matt' });
      await discord.untilGuildReady(guild.id, 60_000);
      return owner;
    };
    const get = (owner: string, id: string) =>
      apiCall<Transcript>(system!.url, 'GET', `/transcripts/${id}`, owner);
    const transcribe = (token: string, id: string) =>
      apiCall<Record<string, unknown>>(system!.url, 'POST', `/transcripts/${id}/transcribe`, token);

    it('keeps each speaker’s track with no lines, and gives per-speaker lines in time order once a provider is set', async () => {
      let owner = await start();
      await waitFor(() => discord.commands.has('global'), 30_000);
      table = voiceTable(discord, guild.id, '9002');
      await table.join('4001');
      await table.join('4002');
      const turns: Turn[] = [
        { speaker: matt, text: 'Welcome back to the city of Kraghammer' },
        { speaker: laura, text: 'Vex draws her bow and looks around' },
        { speaker: matt, text: 'Roll for perception everyone' },
      ];
      const spoken = await table.prepare(turns);
      const started = await discord.command(guild.id, '9001', '4001', 'start');
      const tid = sessionIdIn(started.content);
      await waitFor(async () => (await get(owner, tid)).status === 200, 30_000);
      await table.play(spoken, { pauseSeconds: 1.5 });
      await discord.command(guild.id, '9001', '4001', 'stop');
      await waitFor(async () => (await get(owner, tid)).body.status === 'ended', 30_000);
      let tracks: AudioTrack[] = [];
      await waitFor(async () => {
        const res = await apiCall<AudioTrack[]>(
          system!.url,
          'GET',
          `/transcripts/${tid}/audio/tracks`,
          owner,
        );
        tracks = res.status === 200 ? res.body : [];
        return tracks.length === 2;
      }, 30_000);
      expect(tracks.map((t) => t.speaker)).toEqual(['Laura', 'Matt']);
      const kept = await get(owner, tid);
      expect(kept.body).toMatchObject({ status: 'ended', content: '', transcription_status: 'none' });
      // Nothing can transcribe it yet: the answer names the settings, and nothing changes.
      expect(await transcribe(owner, tid)).toMatchObject({
        status: 400,
        body: { detail: TRANSCRIBE_NEEDS_PROVIDER },
      });
      expect((await get(owner, tid)).body.transcription_status).toBe('none');

      await table.close();
      table = undefined;
      await system!.stop();
      system = undefined;

      // The operator sets a transcription server and restarts on the same data.
      owner = await start(whisper.transcription.env());
      const sam = await signInWithDiscord(system!, oauth, { id: '4003', username: 'sam' });
      expect((await transcribe(sam, tid)).status).toBe(404);
      // The server refuses at first (a wrong key): the session fails, its tracks still kept, so
      // it can be tried again.
      whisper.transcription.apiKey = 'sk-only-for-others';
      const queued = await transcribe(owner, tid);
      expect(queued.status).toBe(200);
      expect(['queued', 'processing']).toContain(queued.body.transcription_status);
      expect((await transcribe(owner, tid)).status).toBe(409);
      let failed: Transcript | undefined;
      await waitFor(async () => {
        failed = (await get(owner, tid)).body;
        return failed.transcription_status === 'failed' || failed.transcription_status === 'completed';
      }, 90_000);
      expect(failed).toMatchObject({
        transcription_status: 'failed',
        transcription_retryable: true,
        content: '',
      });
      expect(failed!.transcription_error).toContain('Incorrect API key provided.');
      whisper.transcription.apiKey = null;
      const before = whisper.transcription.requests.length;
      const retry = (token: string) =>
        apiCall(system!.url, 'POST', `/transcripts/${tid}/retry-transcription`, token);
      expect((await retry(sam)).status).toBe(404);
      expect((await retry(owner)).status).toBe(200);
      let done: Transcript | undefined;
      await waitFor(async () => {
        done = (await get(owner, tid)).body;
        return done.transcription_status === 'completed' || done.transcription_status === 'failed';
      }, 90_000);
      expect(done!.transcription_error).toBe('');
      expect(done!.transcription_status).toBe('completed');
      // One request per speaker's track, each the whole track (Ogg/Opus), not the session mixed.
      const sent = whisper.transcription.requests.slice(before);
      expect(sent.map((r) => [r.status, r.fileType])).toEqual([
        [200, 'audio/ogg'],
        [200, 'audio/ogg'],
      ]);
      // Each line is its track's speaker's, in time order across the tracks (Laura's line lies
      // between Matt's two), at its time in the session: the peer names each segment's times in
      // the track it was sent, and a track runs on the session's clock.
      const lines = done!.content.split('\n');
      const parsed = lines.map((l) => {
        const m = /^\[00:00:(\d\d)\] (\w+): Words from (\d+\.\d\d) to (\d+\.\d\d) seconds\.$/.exec(l);
        expect(m, l).not.toBeNull();
        return { at: Number(m![1]), speaker: m![2], start: Number(m![3]), end: Number(m![4]) };
      });
      expect(parsed.map((l) => l.speaker)).toEqual(['Matt', 'Laura', 'Matt']);
      for (const [i, l] of parsed.entries()) {
        expect(l.at).toBe(Math.floor(l.start));
        if (i > 0) expect(l.start).toBeGreaterThan(parsed[i - 1]!.end);
      }
      // The tracks stay kept, to play from a line's time.
      const after = await apiCall<AudioTrack[]>(
        system!.url,
        'GET',
        `/transcripts/${tid}/audio/tracks`,
        owner,
      );
      expect(after.body.map((t) => t.speaker)).toEqual(['Laura', 'Matt']);
      expect((await transcribe(owner, tid)).status).toBe(409);

      // Laura removes her part: her line, heard on her track, goes with the track.
      const lauraWeb = await signInWithDiscord(system!, oauth, { id: '4002', username: 'laura' });
      const removed = await apiCall(system!.url, 'DELETE', `/me/recorded/${tid}`, lauraWeb);
      expect(removed).toMatchObject({ status: 200, body: { lines: 1, tracks: 1 } });
      const left = (await apiCall<Transcript>(system!.url, 'GET', `/transcripts/${tid}`, owner)).body.content;
      const leftLines = parseTranscriptLines(left);
      expect(leftLines.map((l) => l.speaker)).toEqual(['Matt', 'Laura', 'Matt']);
      expect(leftLines[1]!.text).toBe(REMOVED_LINE_TEXT);
      expect(left.split('\n')[0]).toBe(lines[0]);
      expect(left.split('\n')[2]).toBe(lines[2]);
      expect((await apiCall(system!.url, 'DELETE', `/me/recorded/${tid}`, lauraWeb)).status).toBe(404);
    }, 300_000);
  },
);

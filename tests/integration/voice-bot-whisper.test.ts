import type { AudioTrack, Transcript } from '@chronicler/contracts';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guildIdForShard, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { startOpenAiPeer, type OpenAiPeer } from '../peers/openai.ts';
import { apiCall } from '../support/api.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { testMode, waitFor, type TestSystem } from '../support/system.ts';
import { startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');

// The voice bot with only an OpenAI-compatible transcription server (a local Whisper has no
// streaming API): espeak-ng speech from members' own voice clients, relayed by the Discord peer's
// voice server, through the
// bot's pipeline, each utterance cut at the speaker's pause and sent to the transcription peer
// as it ends, each answer that speaker's final line.
describe.runIf(hasEspeak)(
  `the voice bot transcribing per utterance through a Whisper server (${testMode} mode)`,
  () => {
    let rig: VoiceRig;
    let system: TestSystem;
    let discord: DiscordPeer;
    let table: VoiceTable;
    let whisper: OpenAiPeer;
    let owner: string;
    const guild: PeerGuild = {
      id: guildIdForShard(0, 1, 11),
      name: 'Whisper Table',
      ownerId: '2001',
      channels: [
        { id: '5001', name: 'table-talk', type: 0 },
        { id: '5002', name: 'Tavern', type: 2 },
      ],
      members: [
        { id: '2001', username: 'matt', nick: 'Matt' },
        { id: '2002', username: 'laura', nick: 'Laura' },
      ],
    };
    const matt = { key: '2001', displayName: 'Matt', userId: '2001' };
    const laura = { key: '2002', displayName: 'Laura', userId: '2002' };

    beforeAll(async () => {
      whisper = await startOpenAiPeer();
      // espeak-ng pauses briefly at word gaps; one utterance is one segment.
      whisper.transcription.silenceMs = 600;
      rig = await startVoiceRig(guild, {
        // The rig sets a Deepgram key too: the operator names the provider to use.
        SPEECH_PROVIDER: 'openai',
        ...whisper.transcription.env(),
        SPEECH_LIVE_RECONNECT_ATTEMPTS: '3',
      });
      ({ system, discord, owner } = rig);
      table = voiceTable(discord, guild.id, '5002');
      await table.join('2001');
      await table.join('2002');
    }, 180_000);

    afterAll(async () => {
      await table?.close();
      await rig?.stop();
      await whisper?.close();
    });

    const transcript = (id: string) => apiCall<Transcript>(system.url, 'GET', `/transcripts/${id}`, owner);
    const sessionIdOf = (content: string): string => {
      const m = /\/sessions\/([0-9a-f-]{36})/.exec(content);
      if (!m) throw new Error(`no session link in: ${content}`);
      return m[1]!;
    };

    async function record(turns: Turn[], during: (tid: string, viewer: LiveViewer) => Promise<void>) {
      const synthesized = await table.prepare(turns);
      // The server answers only the words of what it is sent.
      whisper.transcription.script(synthesized);
      const started = await discord.command(guild.id, '5001', '2001', 'start');
      const tid = sessionIdOf(started.content);
      await discord.untilVoiceConnections(guild.id, 1);
      await waitFor(async () => (await transcript(tid)).status === 200);
      const viewer = new LiveViewer(system.url, tid, owner);
      try {
        await table.play(synthesized, { pauseSeconds: 1.2 });
        await during(tid, viewer);
      } finally {
        viewer.close();
      }
      return tid;
    }

    it('sends each utterance as it ends and makes it that speaker’s final line, with no interims', async () => {
      const turns: Turn[] = [
        { speaker: matt, text: 'Welcome back to the city of Kraghammer' },
        { speaker: laura, text: 'Vex draws her bow and looks around' },
        { speaker: matt, text: 'Roll for perception everyone' },
      ];
      // The first utterance meets a rate limit and then a server error: it is tried again.
      whisper.transcription.failures.push(
        { status: 429, retryAfterSeconds: 1, message: 'Rate limit reached' },
        { status: 500, message: 'The server had an error' },
      );
      const before = whisper.transcription.requests.length;
      const tid = await record(turns, async (_tid, viewer) => {
        await viewer.untilLines(3, 30_000);
        await discord.command(guild.id, '5001', '2001', 'stop');
        await viewer.untilEnded(30_000);
        const lines = viewer.ordered();
        expect(lines.map((l) => l.text)).toEqual(turns.map((t) => t.text));
        expect(lines.map((l) => l.speaker_info?.displayName)).toEqual(['Matt', 'Laura', 'Matt']);
        for (let i = 1; i < lines.length; i++) {
          expect(lines[i]!.start_seconds).toBeGreaterThan(lines[i - 1]!.end_seconds);
        }
        // A file API answers whole utterances: no preview lines.
        expect(viewer.interims).toEqual([]);
      });
      const sent = whisper.transcription.requests.slice(before);
      expect(sent.map((r) => r.status)).toEqual([429, 500, 200, 200, 200]);
      // The refused ones were answered before their form was read.
      for (const r of sent.filter((x) => x.status === 200)) {
        expect(r).toMatchObject({
          responseFormat: 'verbose_json',
          fileType: 'audio/wav',
          model: 'whisper-peer',
        });
        // One utterance each: a couple of seconds of speech, not the session's audio.
        expect(r.seconds).toBeGreaterThan(0.5);
        expect(r.seconds).toBeLessThan(6);
      }
      const stored = await transcript(tid);
      expect(stored.body.status).toBe('ended');
      expect(stored.body.content.split('\n')).toEqual([
        expect.stringMatching(/^\[00:00:\d\d\] Matt: Welcome back to the city of Kraghammer$/),
        expect.stringMatching(/^\[00:00:\d\d\] Laura: Vex draws her bow and looks around$/),
        expect.stringMatching(/^\[00:00:\d\d\] Matt: Roll for perception everyone$/),
      ]);
    }, 180_000);

    it('ends the session with the server’s message when it refuses the bot, and keeps the recording', async () => {
      whisper.transcription.apiKey = 'sk-only-for-others';
      try {
        const turns: Turn[] = [{ speaker: laura, text: 'This line is kept in the recording' }];
        const tid = await record(turns, async (tid) => {
          await waitFor(async () => (await transcript(tid)).body.status === 'ended', 30_000);
        });
        const ended = await transcript(tid);
        expect(ended.body.transcription_error).toBe(
          'The transcription server answered 401: Incorrect API key provided.',
        );
        // What was said is kept: handed over with the session as the speaker's track (the bot's
        // own copy goes once the transcript service has it).
        let tracks: AudioTrack[] = [];
        await waitFor(async () => {
          tracks = (await apiCall<AudioTrack[]>(system.url, 'GET', `/transcripts/${tid}/audio/tracks`, owner))
            .body;
          return tracks.length > 0;
        }, 30_000);
        expect(tracks.map((t) => t.speaker)).toEqual(['Laura']);
        expect(tracks[0]!.size).toBeGreaterThan(1000);
      } finally {
        whisper.transcription.apiKey = null;
      }
    }, 180_000);
  },
);

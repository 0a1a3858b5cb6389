import type { AdminTranscriptionHours, Transcript } from '@chronicler/contracts';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, type PeerGuild } from '../peers/discord.ts';
import { apiCall } from '../support/api.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { testMode, waitFor } from '../support/system.ts';
import { sessionIdIn, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');

// Members as real @discordjs/voice clients, the Deepgram live peer as the provider: one
// speaker's stream failing (a drop, then a 500 on every reconnect) while the others speak, a
// speaker the stream gate queues and transcribes later, the billed stream time per speaker in
// the admin stats, and a recording reaching its maximum length (warned, then ended and saved).
describe.runIf(hasEspeak)(`the voice bot's streams and limits (${testMode} mode)`, () => {
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 41),
    name: 'Stream Table',
    ownerId: '2101',
    channels: [
      { id: '6101', name: 'table-talk', type: 0 },
      { id: '6102', name: 'Hall', type: 2 },
    ],
    members: [
      { id: '2101', username: 'matt', nick: 'Matt' },
      { id: '2102', username: 'laura', nick: 'Laura' },
      { id: '2103', username: 'travis', nick: 'Travis' },
      { id: '2104', username: 'sam', nick: 'Sam' },
    ],
  };
  const matt = { key: '2101', displayName: 'Matt', userId: '2101' };
  const laura = { key: '2102', displayName: 'Laura', userId: '2102' };
  const travis = { key: '2103', displayName: 'Travis', userId: '2103' };
  const sam = { key: '2104', displayName: 'Sam', userId: '2104' };
  let rig: VoiceRig;
  let table: VoiceTable;

  /** A rig of its own for the tests of the describe it is called in, the four members in the Hall. */
  function useRig(env: NodeJS.ProcessEnv): void {
    beforeAll(async () => {
      rig = await startVoiceRig(
        guild,
        env,
        // Every service in this process: the members' voice clients and the bot share it, as in the wire tests.
        { processes: 'one' },
      );
      await waitFor(() => rig.discord.commands.has('global'), 30_000);
      table = voiceTable(rig.discord, guild.id, '6102');
      for (const id of ['2101', '2102', '2103', '2104']) await table.join(id);
    }, 180_000);

    afterAll(async () => {
      await table?.close();
      await rig?.stop();
    });
  }

  const posted = (text: string) =>
    rig.discord.messages.filter((m) => m.channelId === '6101' && m.content.includes(text));

  async function start(): Promise<{ tid: string; viewer: LiveViewer }> {
    const started = await rig.discord.command(guild.id, '6101', '2101', 'start');
    const tid = sessionIdIn(started.content);
    await waitFor(
      async () => (await apiCall(rig.system.url, 'GET', `/transcripts/${tid}`, rig.owner)).status === 200,
    );
    return { tid, viewer: new LiveViewer(rig.system.url, tid, rig.owner) };
  }

  async function stop(viewer: LiveViewer): Promise<[string | undefined, string][]> {
    const stopped = await rig.discord.command(guild.id, '6101', '2101', 'stop');
    expect(stopped.content).toContain('Recording stopped');
    await viewer.untilEnded(30_000);
    viewer.close();
    return viewer
      .ordered()
      .sort((a, b) => a.start_seconds - b.start_seconds)
      .map((l) => [l.speaker_info?.displayName, l.text]);
  }

  describe('streams', () => {
    useRig({
      // Three streams at once across the bot; a silent one is released after 8 s.
      DEEPGRAM_MAX_STREAMS: '3',
      LIVE_STREAM_IDLE_SECONDS: '8',
      LIVE_STREAM_RETRY_SECONDS: '6',
      SPEECH_LIVE_RECONNECT_ATTEMPTS: '3',
      ADMIN_DISCORD_IDS: '2101',
    });

    it('keeps a provider 500 on one speaker local: the others are all transcribed, her gap is marked, the session goes on', async () => {
      const turns: Turn[] = [
        { speaker: matt, text: 'The gates of the city open slowly' },
        { speaker: laura, text: 'Vex keeps her bow drawn' },
        { speaker: travis, text: 'Grog walks in late' },
        // Said while Laura's stream is down: recorded, never heard by the provider.
        { speaker: laura, text: 'I am talking into the void' },
        { speaker: matt, text: 'A guard steps forward and raises his hand' },
        { speaker: travis, text: 'I raise my axe' },
        // Laura's next stream, tried after LIVE_STREAM_RETRY_SECONDS.
        { speaker: laura, text: 'Can you hear me again' },
      ];
      const spoken = await table.prepare(turns);
      rig.deepgram.script(spoken.filter((t) => t.text !== 'I am talking into the void'));
      const { tid, viewer } = await start();
      await table.play(spoken.slice(0, 3), { pauseSeconds: 1 });
      await viewer.untilLines(3, 30_000);
      // Laura's stream is the second one Deepgram saw: drop it and refuse her reconnects with 500.
      const streams = rig.deepgram.streams.slice(-3);
      const lauraStream = streams[1]!;
      const refused = rig.deepgram.refusals.length;
      rig.deepgram.failHandshakes(2, 500);
      rig.deepgram.drop(lauraStream.id);
      await rig.deepgram.waitFor('her reconnects refused', (p) => p.refusals.length >= refused + 2, 30_000);
      await waitFor(() => posted('The speech service failed for Laura').length > 0, 30_000);
      await table.play(spoken.slice(3, 6), { pauseSeconds: 1 });
      // Her next stream is tried on her first speech 6 s after the failure.
      await delay(3000);
      await table.play([spoken[6]!]);
      await viewer.untilLines(7, 45_000);
      const lines = await stop(viewer);
      const gap = lines.filter(([, text]) => text.startsWith('[transcription unavailable from'));
      expect(gap).toHaveLength(1);
      expect(gap[0]![0]).toBe('Laura');
      expect(gap[0]![1]).toMatch(
        /^\[transcription unavailable from \d:\d\d:\d\d to \d:\d\d:\d\d: the speech service failed; the audio is recorded\]$/,
      );
      expect(lines.filter(([, text]) => !text.startsWith('['))).toEqual(
        turns
          .filter((t) => t.text !== 'I am talking into the void')
          .map((t) => [t.speaker.displayName, t.text]),
      );
      const transcript = await apiCall<Transcript>(rig.system.url, 'GET', `/transcripts/${tid}`, rig.owner);
      expect(transcript.body.status).toBe('ended');
      expect(transcript.body.transcription_error ?? '').toBe('');

      // What the provider bills: a stream per speaker, every one in the admin stats.
      await waitFor(async () => {
        const hours = await apiCall<AdminTranscriptionHours>(
          rig.system.url,
          'GET',
          '/admin/transcription-hours-per-day',
          rig.owner,
        );
        const today = hours.body.transcription_hours_per_day.at(-1);
        return (today?.stream_speakers ?? 0) >= 3 && (today?.stream_hours ?? 0) > 0;
      }, 30_000);
    }, 180_000);

    it('tells a speaker the gate queues, and transcribes their kept speech once a stream frees', async () => {
      const turns: Turn[] = [
        { speaker: matt, text: 'The storm rolls over the hills' },
        { speaker: laura, text: 'We should find shelter now' },
        { speaker: travis, text: 'There is a cave to the north' },
        { speaker: sam, text: 'Scanlan plays a song while we walk' },
      ];
      const spoken = await table.prepare(turns);
      rig.deepgram.script(spoken);
      const { viewer } = await start();
      await table.play(spoken.slice(0, 3), { pauseSeconds: 0.8 });
      await viewer.untilLines(3, 30_000);
      // Three streams held: Sam waits, and is told so.
      await table.play([spoken[3]!]);
      await waitFor(() => posted('Sam is waiting for a free transcription stream').length > 0, 30_000);
      // Matt's stream, silent for 8 s, is released: Sam's kept speech goes through it.
      await viewer.untilLines(4, 45_000);
      const lines = await stop(viewer);
      expect(lines).toEqual(turns.map((t) => [t.speaker.displayName, t.text]));
      expect(posted('Sam is waiting for a free transcription stream')).toHaveLength(1);
    }, 180_000);
  });

  describe('maximum length', () => {
    // Short, so that the test waits 24 s and not the 8 hours of the default: the warning
    // comes 9 s in, after the line (a few seconds on a busy machine).
    useRig({ MAX_SESSION_MINUTES: '0.4', SESSION_END_WARNING_MINUTES: '0.25' });

    it('warns the channel before the maximum length, then ends and saves the recording', async () => {
      const turns: Turn[] = [{ speaker: matt, text: 'This will be a long night' }];
      const spoken = await table.prepare(turns);
      rig.deepgram.script(spoken);
      const { tid, viewer } = await start();
      await table.play(spoken);
      await viewer.untilLines(1, 30_000);
      await waitFor(
        () => posted('reaches its maximum length of 24 seconds in 15 seconds').length > 0,
        60_000,
      );
      await viewer.untilEnded(90_000);
      viewer.close();
      await waitFor(() => posted('Recording ended: it reached its maximum length').length > 0, 30_000);
      expect(posted('Recording ended: it reached its maximum length').at(-1)!.content).toContain(
        `/sessions/${tid}`,
      );
      const transcript = await apiCall<Transcript>(rig.system.url, 'GET', `/transcripts/${tid}`, rig.owner);
      expect(transcript.body.status).toBe('ended');
      expect(transcript.body.content).toContain('This will be a long night');
      // The guild is free for the next recording.
      const status = await rig.discord.command(guild.id, '6101', '2101', 'status');
      expect(status.content).toContain('not recording');
    }, 240_000);
  });
});

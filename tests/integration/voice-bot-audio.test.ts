import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SESSION_AUDIO_BUCKET, type AudioSettings, type AudioTrack } from '@chronicler/contracts';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, type PeerGuild } from '../peers/discord.ts';
import { apiCall } from '../support/api.ts';
import { testMode, waitFor, type TestSystem } from '../support/system.ts';
import {
  keptTracks,
  recordSession,
  seatTable,
  signInWithDiscord,
  startVoiceRig,
  type VoiceRig,
} from '../support/voice-rig.ts';

// Speech to play (espeak-ng) and a reader of the tracks (ffprobe): skipped on a machine without them.
const hasEspeak = existsSync('/usr/bin/espeak-ng') && existsSync('/usr/bin/ffprobe');
const run = promisify(execFile);

/** ffprobe's view of an Ogg file: its container, its one stream's codec, and its duration. */
async function probe(data: Buffer, dir: string): Promise<{ format: string; codec: string; seconds: number }> {
  const file = path.join(dir, `probe-${Date.now()}.ogg`);
  writeFileSync(file, data);
  const { stdout } = await run('/usr/bin/ffprobe', [
    '-v',
    'error',
    '-show_format',
    '-show_streams',
    '-of',
    'json',
    file,
  ]);
  const j = JSON.parse(stdout) as {
    format: { format_name: string; duration: string };
    streams: { codec_name: string }[];
  };
  return {
    format: j.format.format_name,
    codec: j.streams[0]!.codec_name,
    seconds: Number(j.format.duration),
  };
}

// Two members speak through real @discordjs/voice clients; after /stop the bot hands each
// speaker's Ogg/Opus track to the transcript service, and the owner (only) can play them.
describe.runIf(hasEspeak)(
  `the voice bot keeps each speaker's recording with the session (${testMode} mode)`,
  () => {
    let rig: VoiceRig;
    let system: TestSystem;
    let table: VoiceTable;
    let owner: string;
    let other: string;
    let recordings: string;
    const guild: PeerGuild = {
      id: guildIdForShard(0, 1, 33),
      name: 'Audio Table',
      ownerId: '3001',
      channels: [
        { id: '8001', name: 'table-talk', type: 0 },
        { id: '8002', name: 'Tavern', type: 2 },
      ],
      members: [
        { id: '3001', username: 'matt', nick: 'Matt' },
        { id: '3002', username: 'laura', nick: 'Laura' },
        { id: '3003', username: 'sam', nick: 'Sam' },
      ],
    };
    const matt = { key: '3001', displayName: 'Matt', userId: '3001' };
    const laura = { key: '3002', displayName: 'Laura', userId: '3002' };

    beforeAll(async () => {
      rig = await startVoiceRig(guild, { SUMMARY_AUTOMATIC: 'false' }, { processes: 'one' });
      ({ system, recordings, owner } = rig);
      other = await signInWithDiscord(system, rig.oauth, { id: '3003', username: 'sam' });
      table = await seatTable(rig, guild.id, '8002', ['3001', '3002']);
    }, 120_000);

    afterAll(async () => {
      await table?.close();
      await rig?.stop();
    });

    const get = (token: string, p: string, headers: Record<string, string> = {}) =>
      fetch(`${system.url}/api${p}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

    it('lists both speakers after /stop, serves each track as Ogg/Opus on the session clock with ranges, only to the owner, counted and swept by retention, and deletes them with the session', async () => {
      const turns: Turn[] = [
        { speaker: matt, text: 'The dragon circles above the tower' },
        { speaker: laura, text: 'Vex nocks an arrow and waits' },
      ];
      const { tid, lines, spoken } = await recordSession(rig, table, {
        guildId: guild.id,
        textChannelId: '8001',
        by: '3001',
        turns,
      });

      // Both tracks handed over, under the names of their lines; the bot's copies then removed.
      const tracks = await keptTracks(rig, tid, 2);
      const base = `/api/transcripts/${tid}/audio`;
      expect(tracks).toEqual([
        expect.objectContaining({
          speaker: 'Laura',
          format: 'ogg',
          content_type: 'audio/ogg',
          url: `${base}?speaker=Laura`,
        }),
        expect.objectContaining({
          speaker: 'Matt',
          format: 'ogg',
          content_type: 'audio/ogg',
          url: `${base}?speaker=Matt`,
        }),
      ]);
      await waitFor(() => readdirSync(path.join(recordings, tid)).every((f) => !f.endsWith('.ogg')), 30_000);

      const scratch = mkdtempSync(path.join(os.tmpdir(), 'chronicler-probe-'));
      try {
        for (const [i, who] of [matt, laura].entries()) {
          const track = tracks.find((t) => t.speaker === who.displayName)!;
          const res = await get(owner, `/transcripts/${tid}/audio?speaker=${who.displayName}`);
          expect(res.status).toBe(200);
          expect(res.headers.get('content-type')).toBe('audio/ogg');
          expect(res.headers.get('accept-ranges')).toBe('bytes');
          const body = Buffer.from(await res.arrayBuffer());
          expect(body.length).toBe(track.size);
          const info = await probe(body, scratch);
          expect(info.format).toBe('ogg');
          expect(info.codec).toBe('opus');
          // Track time is session time: the track runs to the end of the speaker's line (Laura's
          // begins with the silence before she spoke), and holds at least what they said.
          const line = lines.find((l) => l.speaker_info?.displayName === who.displayName)!;
          const speech = spoken[i]!.pcm.length / (48_000 * 4);
          expect(info.seconds).toBeGreaterThanOrEqual(speech - 0.3);
          expect(Math.abs(info.seconds - line.end_seconds)).toBeLessThan(1.5);
          // A seek: exactly the bytes asked for.
          const part = await get(owner, `/transcripts/${tid}/audio?speaker=${who.displayName}`, {
            range: 'bytes=100-1099',
          });
          expect(part.status).toBe(206);
          expect(part.headers.get('content-range')).toBe(`bytes 100-1099/${track.size}`);
          expect(Buffer.from(await part.arrayBuffer()).equals(body.subarray(100, 1100))).toBe(true);
        }
        // Laura spoke second: her track starts with the silence before she did.
        const lauraLine = lines.find((l) => l.speaker_info?.displayName === 'Laura')!;
        expect(lauraLine.start_seconds).toBeGreaterThan(1);
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }

      // Without ?speaker=: the first track by name. A name the session has no track for: 404.
      const first = await get(owner, `/transcripts/${tid}/audio`, { range: 'bytes=0-3' });
      expect(first.status).toBe(206);
      expect(first.headers.get('content-range')).toBe(`bytes 0-3/${tracks[0]!.size}`);
      expect((await get(owner, `/transcripts/${tid}/audio?speaker=Travis`)).status).toBe(404);

      // Counted in the owner's storage.
      const settings = await apiCall<AudioSettings>(system.url, 'GET', '/users/audio-settings', owner);
      expect(settings.body.used_bytes).toBe(tracks[0]!.size + tracks[1]!.size);
      expect(settings.body.sessions_with_audio).toBe(1);

      // Another user: 404 for the list and for each track.
      expect((await get(other, `/transcripts/${tid}/audio/tracks`)).status).toBe(404);
      expect((await get(other, `/transcripts/${tid}/audio?speaker=Matt`)).status).toBe(404);
      expect((await get(other, `/transcripts/${tid}/audio`)).status).toBe(404);

      // A retention the older track is past: that track goes (its blob too), the other stays.
      await system.platform!.db.query(
        `update transcript.audio_tracks set kept_at = now() - interval '40 days' where transcript_id = $1 and speaker = 'Matt'`,
        [tid],
      );
      const retention = await fetch(`${system.url}/api/users/audio-settings`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json' },
        body: JSON.stringify({ retention_days: 30 }),
      });
      const lauraTrack = tracks.find((t) => t.speaker === 'Laura')!;
      expect(await retention.json()).toEqual({
        retention_days: 30,
        used_bytes: lauraTrack.size,
        sessions_with_audio: 1,
      });
      const left = await apiCall<AudioTrack[]>(system.url, 'GET', `/transcripts/${tid}/audio/tracks`, owner);
      expect(left.body.map((t) => t.speaker)).toEqual(['Laura']);
      expect((await get(owner, `/transcripts/${tid}/audio?speaker=Matt`)).status).toBe(404);

      // Deleting the session removes its tracks, blobs included.
      expect((await apiCall(system.url, 'DELETE', `/transcripts/${tid}`, owner)).status).toBeLessThan(300);
      expect((await get(owner, `/transcripts/${tid}/audio/tracks`)).status).toBe(404);
      expect((await get(owner, `/transcripts/${tid}/audio?speaker=Matt`)).status).toBe(404);
      const blobs = system.platform?.bus.blobs;
      if (blobs) {
        for (const name of ['3001.ogg', '3002.ogg']) {
          expect(await blobs.info(SESSION_AUDIO_BUCKET, `${tid}/${name}`)).toBeNull();
        }
      }
      const after = await apiCall<AudioSettings>(system.url, 'GET', '/users/audio-settings', owner);
      expect(after.body.used_bytes).toBe(0);
    }, 180_000);
  },
);

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { recordingLinksRpc } from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, MEMBER_PERMISSIONS, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
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

// Speech to play (espeak-ng) and the reader of what was downloaded (ffprobe); FLAC and the mix
// are made by the gateway's ffmpeg: skipped without them.
const hasTools = ['/usr/bin/espeak-ng', '/usr/bin/ffprobe', '/usr/bin/ffmpeg'].every((f) => existsSync(f));
const run = promisify(execFile);
const MANAGE_GUILD = 1n << 5n;

/** How long the audio of a file lasts as ffprobe decodes it (its last packet's end). */
async function decodedSeconds(data: Buffer, dir: string, ext: string): Promise<number> {
  const file = path.join(dir, `probe-${Date.now()}-${Math.random().toString(36).slice(2)}.${ext}`);
  writeFileSync(file, data);
  const { stdout } = await run('/usr/bin/ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'a:0',
    '-show_entries',
    'packet=pts_time,duration_time',
    '-of',
    'csv=p=0',
    file,
  ]);
  const last = stdout.trim().split('\n').filter(Boolean).at(-1) ?? '0,0';
  const [pts, dur] = last.split(',').map(Number) as [number, number];
  return pts + (Number.isFinite(dur) ? dur : 0);
}

/** The download paths a /recording reply carries, by file (as signed). */
function linksOf(record: unknown): Map<string, string> {
  const text = JSON.stringify(record);
  const links = new Map<string, string>();
  for (const m of text.matchAll(/\/api\/recordings\/[^/\s")]+\/((?:speakers\/)?[^\s")]+)/g)) {
    links.set(decodeURIComponent(m[1]!), m[0]);
  }
  return links;
}

// Two members speak through real @discordjs/voice clients; after /stop, /recording gives the
// owner signed links to each speaker's track (Ogg, FLAC), everyone mixed, and a zip.
describe.runIf(hasTools)(`/recording hands out signed, expiring download links (${testMode} mode)`, () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let discord: DiscordPeer;
  let table: VoiceTable;
  let owner: string;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 35),
    name: 'Recording Table',
    ownerId: '3101',
    channels: [
      { id: '8101', name: 'table-talk', type: 0 },
      { id: '8102', name: 'Tavern', type: 2 },
    ],
    members: [
      { id: '3101', username: 'matt', nick: 'Matt' },
      { id: '3102', username: 'laura', nick: 'Laura' },
      { id: '3103', username: 'sam', nick: 'Sam' },
      { id: '3104', username: 'ashley', nick: 'Ashley' },
    ],
  };
  const matt = { key: '3101', displayName: 'Matt', userId: '3101' };
  const laura = { key: '3102', displayName: 'Laura', userId: '3102' };

  beforeAll(async () => {
    rig = await startVoiceRig(guild, { SUMMARY_AUTOMATIC: 'false' }, { processes: 'one' });
    ({ system, discord, owner } = rig);
    await signInWithDiscord(system, rig.oauth, { id: '3103', username: 'sam' });
    table = await seatTable(rig, guild.id, '8102', ['3101', '3102']);
  }, 120_000);

  afterAll(async () => {
    await table?.close();
    await rig?.stop();
  });

  it('gives the owner per-speaker Ogg and FLAC, a mix and a zip that decode to the tracks; refuses tampered, expired and other members', async () => {
    const turns: Turn[] = [
      { speaker: matt, text: 'The dragon circles above the tower' },
      { speaker: laura, text: 'Vex nocks an arrow and waits' },
    ];
    const { tid } = await recordSession(rig, table, {
      guildId: guild.id,
      textChannelId: '8101',
      by: '3101',
      turns,
      name: 'Night of the Dragon',
    });
    const tracks = await keptTracks(rig, tid, 2);

    // The owner: links to every file, only they see the reply.
    const reply = await discord.command(guild.id, '8101', '3101', 'recording');
    expect(reply.ephemeral).toBe(true);
    const links = linksOf(reply.record);
    expect([...links.keys()].sort()).toEqual(
      [
        'all.zip',
        'mixed.flac',
        'mixed.ogg',
        'speakers/Laura.flac',
        'speakers/Laura.ogg',
        'speakers/Matt.flac',
        'speakers/Matt.ogg',
      ].sort(),
    );
    const get = (p: string, headers: Record<string, string> = {}) => fetch(`${system.url}${p}`, { headers });

    const scratch = mkdtempSync(path.join(os.tmpdir(), 'chronicler-recording-'));
    try {
      const seconds = new Map<string, number>();
      for (const t of tracks) {
        const own = await get(`/api/transcripts/${tid}/audio?speaker=${t.speaker}`, {
          authorization: `Bearer ${owner}`,
        });
        seconds.set(t.speaker!, await decodedSeconds(Buffer.from(await own.arrayBuffer()), scratch, 'ogg'));
        expect(seconds.get(t.speaker!)).toBeGreaterThan(1);
      }
      for (const speaker of ['Matt', 'Laura']) {
        const ogg = await get(links.get(`speakers/${speaker}.ogg`)!);
        expect(ogg.status).toBe(200);
        expect(ogg.headers.get('content-type')).toBe('audio/ogg');
        expect(ogg.headers.get('content-disposition')).toContain(`${speaker}.ogg`);
        const oggBody = Buffer.from(await ogg.arrayBuffer());
        expect(oggBody.length).toBe(tracks.find((t) => t.speaker === speaker)!.size);
        expect(
          Math.abs((await decodedSeconds(oggBody, scratch, 'ogg')) - seconds.get(speaker)!),
        ).toBeLessThan(1.5);
        const part = await get(links.get(`speakers/${speaker}.ogg`)!, { range: 'bytes=10-19' });
        expect(part.status).toBe(206);
        expect(Buffer.from(await part.arrayBuffer()).equals(oggBody.subarray(10, 20))).toBe(true);

        const flac = await get(links.get(`speakers/${speaker}.flac`)!);
        expect(flac.status).toBe(200);
        expect(flac.headers.get('content-type')).toBe('audio/flac');
        const flacBody = Buffer.from(await flac.arrayBuffer());
        expect(flacBody.subarray(0, 4).toString()).toBe('fLaC');
        expect(
          Math.abs((await decodedSeconds(flacBody, scratch, 'flac')) - seconds.get(speaker)!),
        ).toBeLessThan(1.5);
      }
      const longest = Math.max(...seconds.values());
      for (const ext of ['ogg', 'flac']) {
        const mixed = await get(links.get(`mixed.${ext}`)!);
        expect(mixed.status).toBe(200);
        const got = await decodedSeconds(Buffer.from(await mixed.arrayBuffer()), scratch, ext);
        expect(got).toBeGreaterThanOrEqual(longest - 1.5);
      }
      const zip = await get(links.get('all.zip')!);
      expect(zip.status).toBe(200);
      expect(zip.headers.get('content-type')).toBe('application/zip');
      const entries = unzipSync(new Uint8Array(await zip.arrayBuffer()));
      expect(Object.keys(entries).sort()).toEqual(['Laura.ogg', 'Matt.ogg']);
      expect(entries['Matt.ogg']!.length).toBe(tracks.find((t) => t.speaker === 'Matt')!.size);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }

    // A tampered link (another file under the same signature, or a changed expiry): refused.
    const matts = links.get('speakers/Matt.ogg')!;
    expect((await get(matts.replace('speakers/Matt.ogg', 'speakers/Laura.ogg'))).status).toBe(404);
    expect((await get(matts.replace(/\.(\d+)\./, (_, e: string) => `.${Number(e) + 3600}.`))).status).toBe(
      404,
    );
    expect((await get(matts.replace(/\.([A-Za-z0-9_-]{43})\//, '.' + 'A'.repeat(43) + '/'))).status).toBe(
      404,
    );

    // A link signed for a second: once it is past, 410.
    const short = await call(system.platform!.bus, recordingLinksRpc, {
      guild_id: guild.id,
      owner_id: null,
      any_owner: true,
      id: tid,
      sign: true,
      ttl_s: 1,
    });
    const shortZip = short.links!.files.find((f) => f.file === 'all.zip')!.path;
    let expired: Response | undefined;
    await waitFor(async () => {
      expired = await get(shortZip);
      return expired.status !== 200;
    }, 30_000);
    expect(expired!.status).toBe(410);
    expect(((await expired!.json()) as { detail: string }).detail).toMatch(/expired/);

    // Sam (signed in, not the owner, no Manage Server) gets no links; Ashley, who can manage
    // the server, does.
    const sam = await discord.command(guild.id, '8101', '3103', 'recording');
    expect(sam.ephemeral).toBe(true);
    expect(linksOf(sam.record).size).toBe(0);
    expect(JSON.stringify(sam.record)).toMatch(/someone who can manage this server/);
    const ashley = await discord.command(
      guild.id,
      '8101',
      '3104',
      'recording',
      {},
      MEMBER_PERMISSIONS | MANAGE_GUILD,
    );
    expect(linksOf(ashley.record).size).toBe(7);

    // The session deleted: its links answer 404.
    expect((await apiCall(system.url, 'DELETE', `/transcripts/${tid}`, owner)).status).toBeLessThan(300);
    expect((await get(links.get('speakers/Matt.ogg')!)).status).toBe(404);
  }, 240_000);
});

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  NO_GRANULE,
  OGG_BOS,
  OGG_CONTINUED,
  OGG_EOS,
  OggOpusRecorder,
  OggPacketPager,
  oggPackets,
  parseOggPages,
} from './ogg-writer.ts';
import { oggCrc32 } from './ogg-crc.ts';
import { OPUS_SILENCE_FRAME, opusPacketSamples } from './opus.ts';
import { monoToStereo } from './resample.ts';
import { encodeDiscordOpus } from './synth.ts';

const FFPROBE = '/usr/bin/ffprobe';
const FFMPEG = '/usr/bin/ffmpeg';
const hasFfmpeg = existsSync(FFPROBE) && existsSync(FFMPEG);
if (!hasFfmpeg) {
  console.warn('ffprobe/ffmpeg not found in /usr/bin: the Ogg files are checked by our own parser only');
}

/** Bit-at-a-time CRC (RFC 3533: poly 0x04C11DB7, init 0, no reflection, no final XOR). */
function referenceCrc(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 24;
    for (let k = 0; k < 8; k++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    crc >>>= 0;
  }
  return crc >>> 0;
}

function tonePackets(seconds: number, freq = 440): Buffer[] {
  const n = Math.round(seconds * 48_000);
  const mono = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++)
    mono.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * freq * i) / 48_000)), i * 2);
  return encodeDiscordOpus(monoToStereo(mono));
}

/** Decodes a file with ffmpeg to 48 kHz mono s16le. */
function ffmpegDecode(file: string): Buffer {
  return execFileSync(FFMPEG, ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-ar', '48000', '-'], {
    maxBuffer: 64 * 1024 * 1024,
  });
}

function rmsAt(pcm: Buffer, fromS: number, toS: number): number {
  let sum = 0;
  const a = Math.floor(fromS * 48_000);
  const b = Math.floor(toS * 48_000);
  for (let i = a; i < b; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return Math.sqrt(sum / (b - a));
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ogg-writer-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('Ogg CRC', () => {
  it('matches a bit-by-bit reference implementation', () => {
    const data = Buffer.from('OggS, the Ogg capture pattern, and some more bytes \u00ff\u0000', 'latin1');
    expect(oggCrc32(data)).toBe(referenceCrc(data));
    expect(oggCrc32(Buffer.alloc(0))).toBe(0);
  });
});

describe('OggPacketPager', () => {
  it('splits a packet longer than a page over continued pages with no granule until it ends', () => {
    const pager = new OggPacketPager(7);
    const big = Buffer.alloc(255 * 255 + 1000, 0xab);
    pager.add(Buffer.from('first'), 100n);
    pager.add(big, 200n);
    const pages = parseOggPages(Buffer.concat(pager.pageOut({ eos: true })));
    expect(pages).toHaveLength(2);
    expect(pages.every((p) => p.crcOk && p.serial === 7)).toBe(true);
    expect(pages[0]!.headerType).toBe(OGG_BOS);
    // The first page ends inside the big packet: its granule is that of "first".
    expect(pages[0]!.granule).toBe(100n);
    expect(pages[0]!.segments).toHaveLength(255);
    expect(pages[1]!.headerType).toBe(OGG_CONTINUED | OGG_EOS);
    expect(pages[1]!.granule).toBe(200n);
    expect(oggPackets(pages).map((p) => p.data)).toEqual([Buffer.from('first'), big]);
  });

  it('marks a page on which no packet ends with granule -1', () => {
    const pager = new OggPacketPager(1);
    pager.add(Buffer.alloc(255 * 600, 1), 960n);
    const pages = parseOggPages(Buffer.concat(pager.pageOut({ eos: true })));
    expect(pages.map((p) => p.granule)).toEqual([NO_GRANULE, NO_GRANULE, 960n]);
    expect(pages.map((p) => p.sequence)).toEqual([0, 1, 2]);
    // A length that is a multiple of 255 ends with a 0 lacing value.
    expect(pages[2]!.segments.at(-1)).toBe(0);
  });
});

describe('OggOpusRecorder', () => {
  it('writes OpusHead and OpusTags pages, then packets with granules and consecutive sequence numbers', async () => {
    const file = path.join(dir, 'tone.ogg');
    const rec = new OggOpusRecorder(file, { tags: { ARTIST: 'Aria' } });
    const packets = tonePackets(3);
    for (const p of packets) rec.writePacket(p);
    await rec.close();
    const pages = parseOggPages(await readFile(file));
    expect(pages.every((p) => p.crcOk)).toBe(true);
    expect(pages.map((p) => p.sequence)).toEqual(pages.map((_, i) => i));
    expect(new Set(pages.map((p) => p.serial)).size).toBe(1);
    expect(pages[0]!.headerType).toBe(OGG_BOS);
    expect(pages[0]!.body.toString('latin1', 0, 8)).toBe('OpusHead');
    expect(pages[0]!.body.readUInt8(9)).toBe(2);
    expect(pages[0]!.body.readUInt16LE(10)).toBe(0);
    expect(pages[0]!.granule).toBe(0n);
    expect(pages[1]!.body.toString('latin1', 0, 8)).toBe('OpusTags');
    expect(pages[1]!.body.includes(Buffer.from('ARTIST=Aria'))).toBe(true);
    expect(pages[1]!.granule).toBe(0n);
    expect(pages.at(-1)!.headerType & OGG_EOS).toBe(OGG_EOS);
    // Each audio page's granule counts every sample up to its last packet.
    const audio = oggPackets(pages).slice(2);
    expect(audio.map((p) => p.data)).toEqual(packets);
    let total = 0n;
    for (const { data, pageIndex } of audio) {
      total += BigInt(opusPacketSamples(data));
      const last = audio.filter((p) => p.pageIndex === pageIndex).at(-1)!.data;
      if (last === data) expect(pages[pageIndex]!.granule).toBe(total);
    }
    expect(total).toBe(3n * 48_000n);
  });

  it('fills a gap with silence frames so that the file keeps real time', async () => {
    const file = path.join(dir, 'gap.ogg');
    const rec = new OggOpusRecorder(file);
    for (const p of tonePackets(1)) rec.writePacket(p);
    rec.writeSilence(2 * 48_000);
    for (const p of tonePackets(1)) rec.writePacket(p);
    await rec.close();
    const pages = parseOggPages(await readFile(file));
    expect(pages.at(-1)!.granule).toBe(4n * 48_000n);
    const silence = oggPackets(pages).filter((p) => p.data.equals(OPUS_SILENCE_FRAME));
    expect(silence).toHaveLength(100);
  });

  it('puts audio on disk at each flush, holding back only the newest packet', async () => {
    const file = path.join(dir, 'flush.ogg');
    const rec = new OggOpusRecorder(file);
    await rec.flush();
    const headersOnly = (await stat(file)).size;
    const packets = tonePackets(1);
    for (const p of packets) rec.writePacket(p);
    await rec.flush();
    const pages = parseOggPages(await readFile(file));
    expect((await stat(file)).size).toBeGreaterThan(headersOnly);
    expect(pages.at(-1)!.granule).toBe(49n * 960n);
    expect(rec.pending).toBe(1);
    await rec.close();
    expect(parseOggPages(await readFile(file)).at(-1)!.granule).toBe(50n * 960n);
  });

  it('writes an EOS page even when nothing was recorded', async () => {
    const file = path.join(dir, 'empty.ogg');
    const rec = new OggOpusRecorder(file);
    await rec.close();
    const pages = parseOggPages(await readFile(file));
    expect(pages).toHaveLength(3);
    expect(pages[2]!.headerType).toBe(OGG_EOS);
    expect(pages[2]!.granule).toBe(0n);
  });

  it('reports a file that cannot be written', async () => {
    // A directory where a file is: ENOTDIR.
    const blocker = path.join(dir, 'not-a-dir');
    await writeFile(blocker, 'x');
    const rec = new OggOpusRecorder(path.join(blocker, 'x.ogg'));
    rec.writePacket(OPUS_SILENCE_FRAME);
    await expect(rec.close()).rejects.toThrow();
  });

  it.skipIf(!hasFfmpeg)(
    'is read by ffprobe and ffmpeg with the tone where it was written (skipped without ffmpeg)',
    async () => {
      const file = path.join(dir, 'ffmpeg.ogg');
      const rec = new OggOpusRecorder(file);
      for (const p of tonePackets(1)) rec.writePacket(p);
      rec.writeSilence(1.5 * 48_000);
      for (const p of tonePackets(0.5, 1000)) rec.writePacket(p);
      await rec.close();
      const probe = JSON.parse(
        execFileSync(FFPROBE, [
          '-v',
          'error',
          '-show_streams',
          '-show_format',
          '-of',
          'json',
          file,
        ]).toString(),
      ) as {
        streams: { codec_name: string; channels: number; sample_rate: string }[];
        format: { duration: string };
      };
      expect(probe.streams).toHaveLength(1);
      expect(probe.streams[0]).toMatchObject({ codec_name: 'opus', channels: 2, sample_rate: '48000' });
      expect(Number(probe.format.duration)).toBeCloseTo(3, 1);
      // Page CRCs are checked by ffmpeg's demuxer; -v error prints any complaint to stderr.
      const pcm = ffmpegDecode(file);
      expect(pcm.length / 2 / 48_000).toBeCloseTo(3, 1);
      expect(rmsAt(pcm, 0.1, 0.9)).toBeGreaterThan(3000);
      expect(rmsAt(pcm, 1.1, 2.4)).toBeLessThan(50);
      expect(rmsAt(pcm, 2.6, 2.9)).toBeGreaterThan(3000);
    },
  );
});

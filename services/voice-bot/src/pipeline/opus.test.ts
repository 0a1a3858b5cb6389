import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPUS_SILENCE_FRAME, OpusFrameEncoder, OpusPacketDecoder, opusPacketSamples } from './opus.ts';
import { monoToStereo } from './resample.ts';
import { ESPEAK_PATH, encodeDiscordOpus, speak, toDiscordPcm } from './synth.ts';

const hasEspeak = existsSync(ESPEAK_PATH);

/** Left channel of s16le stereo as numbers. */
function left(pcm: Buffer): Float64Array {
  const out = new Float64Array(pcm.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = pcm.readInt16LE(i * 4);
  return out;
}

/** Highest normalised correlation of `b` against `a` over lags 0..maxLag (Opus delays its output). */
function bestCorrelation(a: Float64Array, b: Float64Array, maxLag: number): number {
  let best = -1;
  for (let lag = 0; lag <= maxLag; lag += 1) {
    let ab = 0;
    let aa = 0;
    let bb = 0;
    const n = Math.min(a.length, b.length - lag);
    for (let i = 0; i < n; i += 2) {
      ab += a[i]! * b[i + lag]!;
      aa += a[i]! * a[i]!;
      bb += b[i + lag]! * b[i + lag]!;
    }
    best = Math.max(best, ab / Math.sqrt(aa * bb || 1));
  }
  return best;
}

function energy(x: Float64Array): number {
  return x.reduce((s, v) => s + v * v, 0);
}

function roundTrip(pcm48kStereo: Buffer): { packets: Buffer[]; decoded: Buffer } {
  const packets = encodeDiscordOpus(pcm48kStereo);
  const decoder = new OpusPacketDecoder();
  try {
    return { packets, decoded: Buffer.concat(packets.map((p) => decoder.decode(p)!)) };
  } finally {
    decoder.destroy();
  }
}

describe('Opus', () => {
  it('reads the duration of a packet from its TOC byte', () => {
    expect(opusPacketSamples(OPUS_SILENCE_FRAME)).toBe(960);
    expect(opusPacketSamples(Buffer.from([0x78 | 0x01, 0, 0]))).toBe(1920); // SILK WB 20 ms, two frames
    expect(opusPacketSamples(Buffer.from([(16 << 3) | 0]))).toBe(120); // CELT 2.5 ms
    expect(opusPacketSamples(Buffer.from([(3 << 3) | 3, 2]))).toBe(5760); // SILK 60 ms x 2
    expect(opusPacketSamples(Buffer.alloc(0))).toBe(0);
  });

  it('decodes the silence frame to 20 ms of stereo silence', () => {
    const d = new OpusPacketDecoder();
    const pcm = d.decode(OPUS_SILENCE_FRAME)!;
    d.destroy();
    expect(pcm.length).toBe(960 * 4);
    expect(left(pcm).every((v) => v === 0)).toBe(true);
  });

  it('round-trips a 440 Hz tone through 20 ms packets', () => {
    const mono = Buffer.alloc(48_000 * 2);
    for (let i = 0; i < 48_000; i++)
      mono.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 48_000)), i * 2);
    const { packets, decoded } = roundTrip(monoToStereo(mono));
    expect(packets).toHaveLength(50);
    expect(packets.every((p) => opusPacketSamples(p) === 960)).toBe(true);
    expect(decoded.length).toBe(48_000 * 4);
    const a = left(monoToStereo(mono)).subarray(2000, 40_000);
    const b = left(decoded).subarray(2000);
    expect(bestCorrelation(a, b, 600)).toBeGreaterThan(0.95);
  });

  it.skipIf(!hasEspeak)('round-trips synthesized speech (skipped without espeak-ng)', async () => {
    const pcm = toDiscordPcm(
      await speak('The dragon sleeps beneath the mountain of Khazad.', { voice: 'en-gb' }),
    );
    const { packets, decoded } = roundTrip(pcm);
    expect(packets.length).toBe(Math.ceil(pcm.length / 3840));
    const a = left(pcm);
    const b = left(decoded);
    expect(bestCorrelation(a.subarray(0, a.length - 2000), b, 600)).toBeGreaterThan(0.8);
    const ratio = energy(b) / energy(a);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });

  it('turns an undecodable packet into null instead of an error, and goes on decoding', () => {
    const d = new OpusPacketDecoder();
    // TOC code 3 with a frame count of 0 is invalid (RFC 6716 §3.2.5).
    expect(d.decode(Buffer.from([0x03, 0x00]))).toBeNull();
    expect(d.decode(OPUS_SILENCE_FRAME)?.length).toBe(3840);
    d.destroy();
    expect(d.decode(OPUS_SILENCE_FRAME)).toBeNull();
  });

  it('encodes 16 kHz mono in 20 ms frames, keeping the remainder for the next chunk', () => {
    const e = new OpusFrameEncoder({ rate: 16_000, channels: 1 });
    expect(e.encode(Buffer.alloc(500 * 2))).toHaveLength(1);
    expect(e.encode(Buffer.alloc(140 * 2))).toHaveLength(1);
    expect(e.flush()).toHaveLength(0);
    expect(e.encode(Buffer.alloc(10 * 2))).toHaveLength(0);
    const last = e.flush();
    e.destroy();
    expect(last).toHaveLength(1);
    expect(opusPacketSamples(last[0]!)).toBe(960);
  });
});

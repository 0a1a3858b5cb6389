import { describe, expect, it } from 'vitest';
import { Downsampler48kStereoTo16kMono, monoToStereo, resampleMono } from './resample.ts';

function tone(freq: number, seconds: number, rate: number, amplitude = 10_000): Buffer {
  const n = Math.round(seconds * rate);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++)
    b.writeInt16LE(Math.round(amplitude * Math.sin((2 * Math.PI * freq * i) / rate)), i * 2);
  return b;
}

/** RMS of s16le mono, skipping the first `skip` samples (the filter settling). */
function rms(pcm: Buffer, skip = 200): number {
  let sum = 0;
  const n = pcm.length / 2;
  for (let i = skip; i < n; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return Math.sqrt(sum / (n - skip));
}

/** Runs a 48 kHz mono signal through the downsampler in Discord-sized (20 ms) chunks. */
function downsampleInFrames(mono48: Buffer): Buffer {
  const stereo = monoToStereo(mono48);
  const ds = new Downsampler48kStereoTo16kMono();
  const out: Buffer[] = [];
  for (let off = 0; off < stereo.length; off += 3840) out.push(ds.process(stereo.subarray(off, off + 3840)));
  return Buffer.concat(out);
}

const db = (ratio: number): number => 20 * Math.log10(ratio);

describe('48 kHz stereo to 16 kHz mono', () => {
  it('keeps a 1 kHz tone and outputs a third of the samples', () => {
    const input = tone(1000, 1, 48_000);
    const out = downsampleInFrames(input);
    expect(out.length / 2).toBe(16_000);
    expect(Math.abs(db(rms(out) / rms(input)))).toBeLessThan(0.5);
  });

  it('attenuates a 7 kHz tone by more than 30 dB', () => {
    const input = tone(7000, 1, 48_000);
    const out = downsampleInFrames(input);
    expect(db(rms(out) / rms(input))).toBeLessThan(-30);
  });

  it('keeps a tone aliasing onto the pass band (12 kHz would fold to 4 kHz) out', () => {
    const input = tone(12_000, 1, 48_000);
    expect(db(rms(downsampleInFrames(input)) / rms(input))).toBeLessThan(-40);
  });

  it('gives the same output whatever the chunk sizes', () => {
    const stereo = monoToStereo(tone(440, 0.5, 48_000));
    const whole = new Downsampler48kStereoTo16kMono().process(stereo);
    const ds = new Downsampler48kStereoTo16kMono();
    const parts: Buffer[] = [];
    // Odd chunk sizes (in stereo frames) move the decimation phase around.
    for (let off = 0, k = 1; off < stereo.length; k++) {
      const frames = (k * 37) % 101 || 1;
      parts.push(ds.process(stereo.subarray(off, off + frames * 4)));
      off += frames * 4;
    }
    expect(Buffer.concat(parts).equals(whole)).toBe(true);
  });

  it('averages the two channels', () => {
    const left = tone(1000, 0.2, 48_000);
    const stereo = Buffer.alloc(left.length * 2);
    for (let i = 0; i < left.length / 2; i++) stereo.writeInt16LE(left.readInt16LE(i * 2), i * 4);
    const out = new Downsampler48kStereoTo16kMono().process(stereo);
    expect(db(rms(out) / rms(left))).toBeCloseTo(db(0.5), 0);
  });
});

describe('resampleMono', () => {
  it('converts espeak-ng rate to 48 kHz keeping a tone and its length', () => {
    const input = tone(500, 1, 22_050);
    const out = resampleMono(input, 22_050, 48_000);
    expect(out.length / 2).toBe(48_000);
    expect(Math.abs(db(rms(out) / rms(input)))).toBeLessThan(0.5);
    // Still a 500 Hz tone: zero crossings per second.
    let crossings = 0;
    for (let i = 1001; i < 47_000; i++) {
      if (out.readInt16LE(i * 2) >= 0 !== out.readInt16LE((i - 1) * 2) >= 0) crossings++;
    }
    expect(crossings / (46_000 / 48_000)).toBeGreaterThan(990);
    expect(crossings / (46_000 / 48_000)).toBeLessThan(1010);
  });
});

/**
 * Sample-rate conversion for the live pipeline: Discord's 48 kHz stereo to the 16 kHz mono
 * the speech providers take, and (for synthesized test speech) any rate to 48 kHz.
 */

/** Zeroth-order modified Bessel function of the first kind, for the Kaiser window. */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return sum;
}

/**
 * Low-pass FIR taps: a sinc at `cutoffHz` shaped by a Kaiser window, normalised to unity gain
 * at DC. `taps` should be odd so the filter has a whole-sample delay of (taps - 1) / 2.
 */
function lowPassTaps(opts: {
  sampleRate: number;
  cutoffHz: number;
  taps: number;
  beta: number;
}): Float64Array {
  const { sampleRate, cutoffHz, taps, beta } = opts;
  const h = new Float64Array(taps);
  const mid = (taps - 1) / 2;
  const fc = cutoffHz / sampleRate;
  const i0Beta = besselI0(beta);
  let sum = 0;
  for (let n = 0; n < taps; n++) {
    const m = n - mid;
    const sinc = m === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * m) / (Math.PI * m);
    const r = mid === 0 ? 0 : m / mid;
    const w = besselI0(beta * Math.sqrt(Math.max(0, 1 - r * r))) / i0Beta;
    h[n] = sinc * w;
    sum += h[n]!;
  }
  for (let n = 0; n < taps; n++) h[n]! /= sum;
  return h;
}

// Pass band up to ~5.5 kHz, stop band from 7 kHz (attenuated ~50 dB or more). A 16 kHz
// output could carry up to 8 kHz, but a filter that is flat to 8 kHz needs a transition band
// far narrower and a filter far longer; speech recognisers lose next to nothing above 5.5 kHz
// and the stop band then also keeps everything that would alias (9-24 kHz folds onto 0-7 kHz)
// out of the pass band. 103 taps at 48 kHz cost 103 multiply-adds per output sample, about
// 1.6 M per second per speaker: a few milliseconds of CPU per second.
const DECIMATE = 3;
const DOWN_TAPS = lowPassTaps({ sampleRate: 48_000, cutoffHz: 6_250, taps: 103, beta: 5 });

const clamp16 = (v: number): number => (v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v));

/**
 * 48 kHz interleaved stereo s16le in, 16 kHz mono s16le out, as a stream: the filter's
 * history and the decimation phase carry over between chunks, so chunk boundaries (Discord's
 * 20 ms frames) leave no seams. One per speaker.
 */
export class Downsampler48kStereoTo16kMono {
  private readonly taps = DOWN_TAPS;
  /** The last taps-1 mono input samples (zeros at first). */
  private history = new Float64Array(DOWN_TAPS.length - 1);
  /** Offset, in the next chunk's input samples, of the next output sample. */
  private phase = 0;

  /** `pcm`: whole stereo frames (4 bytes each); a trailing partial frame is ignored. */
  process(pcm: Buffer): Buffer {
    const frames = Math.floor(pcm.length / 4);
    const hist = this.history.length;
    const x = new Float64Array(hist + frames);
    x.set(this.history);
    for (let i = 0; i < frames; i++) {
      x[hist + i] = (pcm.readInt16LE(i * 4) + pcm.readInt16LE(i * 4 + 2)) / 2;
    }
    const outCount = frames > this.phase ? Math.ceil((frames - this.phase) / DECIMATE) : 0;
    const out = Buffer.alloc(outCount * 2);
    const h = this.taps;
    const last = h.length - 1;
    for (let o = 0; o < outCount; o++) {
      // x index of the newest sample this output sees.
      const pos = hist + this.phase + o * DECIMATE;
      let acc = 0;
      for (let k = 0; k <= last; k++) acc += h[k]! * x[pos - k]!;
      out.writeInt16LE(clamp16(acc), o * 2);
    }
    this.phase = this.phase + outCount * DECIMATE - frames;
    this.history = x.slice(x.length - hist);
    return out;
  }
}

/**
 * Band-limited conversion of a whole mono s16le signal to another rate (windowed-sinc
 * interpolation; the cut-off sits below the lower of the two Nyquist frequencies). For
 * offline use (synthesized speech); the live path uses the streaming downsampler above.
 */
export function resampleMono(pcm: Buffer, fromRate: number, toRate: number): Buffer {
  const input = new Float64Array(pcm.length >> 1);
  for (let i = 0; i < input.length; i++) input[i] = pcm.readInt16LE(i * 2);
  if (fromRate === toRate) return Buffer.from(pcm.subarray(0, input.length * 2));
  const outLen = Math.floor((input.length * toRate) / fromRate);
  const out = Buffer.alloc(outLen * 2);
  const ratio = toRate / fromRate;
  // Cut-off relative to the input rate; when downsampling it must also stop aliasing.
  const fc = 0.45 * Math.min(1, ratio);
  const zeroCrossings = 16;
  const halfWidth = Math.ceil(zeroCrossings / (2 * fc));
  for (let o = 0; o < outLen; o++) {
    const t = o / ratio;
    const centre = Math.floor(t);
    let acc = 0;
    let norm = 0;
    for (let n = centre - halfWidth + 1; n <= centre + halfWidth; n++) {
      const d = t - n;
      const r = d / halfWidth;
      if (r <= -1 || r >= 1) continue;
      const sinc = d === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * d) / (Math.PI * d);
      // Blackman window: cheap to evaluate for every fractional offset, ~75 dB side lobes.
      const w = 0.42 + 0.5 * Math.cos(Math.PI * r) + 0.08 * Math.cos(2 * Math.PI * r);
      const c = sinc * w;
      norm += c;
      if (n >= 0 && n < input.length) acc += c * input[n]!;
    }
    out.writeInt16LE(clamp16(norm === 0 ? 0 : acc / norm), o * 2);
  }
  return out;
}

/** Mono s16le to interleaved stereo s16le (both channels the same). */
export function monoToStereo(pcm: Buffer): Buffer {
  const n = pcm.length >> 1;
  const out = Buffer.alloc(n * 4);
  for (let i = 0; i < n; i++) {
    const v = pcm.readInt16LE(i * 2);
    out.writeInt16LE(v, i * 4);
    out.writeInt16LE(v, i * 4 + 2);
  }
  return out;
}

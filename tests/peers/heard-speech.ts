/**
 * What a scripted speech peer heard. A peer cannot recognise speech, so a test gives it the
 * script: each line's text and the audio it plays for it (Discord's 48 kHz stereo PCM, what
 * `VoiceTable.prepare` makes). The line's words are spread evenly over its voiced span. The
 * peer matches the audio it received against those recordings by their loudness envelope (the
 * level of each 20 ms frame, which Opus coding, packet loss and resampling leave nearly intact),
 * finds which stretch of which line it was sent, and answers only the words whose audio lies
 * mostly in that stretch. A kill -9 mid-sentence, a bot out of the channel or a hand-over that
 * drops audio therefore cost words, which a test can count; the same audio sent twice (a crashed
 * bot's spool transcribed by its successor) is heard twice, as a real provider would.
 *
 * Lines given as bare text (the speech adapters' own tests, which send tones) have no audio to
 * match: each voiced segment is then taken as the next line, whole, in order of onset.
 */

/** One line of the script: its text and, to be judged by what arrives, the audio played for it. */
export type ScriptLine = string | { text: string; pcm: Buffer };

/** Frames are 20 ms, as Discord's packets and the peers' segmenters. */
export const FRAME_SECONDS = 0.02;
/** Levels below this (dB of the 16-bit RMS) are one level, "quiet": noise floors differ. */
const FLOOR_DB = 30;
/** A window matches a stretch of a line when their levels differ by at most this on average. */
const MAX_MEAN_DB = 4.5;
/** Fewer voiced frames than this (0.2 s) are not enough to tell which line they are. */
const MIN_FRAMES = 10;

/** Frequency bands (Hz) whose levels describe a frame besides its overall level. */
const BANDS: [number, number][] = [
  [80, 400],
  [400, 900],
  [900, 1800],
  [1800, 3500],
];
const FFT_SIZE = 512;
const RATE = 16_000;

/** In-place radix-2 FFT of (re, im). */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    for (let i = 0; i < n; i += len) {
      for (let k = 0; k < len / 2; k++) {
        const wr = Math.cos(ang * k);
        const wi = Math.sin(ang * k);
        const a = i + k;
        const b = a + len / 2;
        const xr = re[b]! * wr - im[b]! * wi;
        const xi = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - xr;
        im[b] = im[a]! - xi;
        re[a]! += xr;
        im[a]! += xi;
      }
    }
  }
}

const db = (power: number): number => Math.max(FLOOR_DB, 10 * Math.log10(power + 1));

/**
 * What describes a 20 ms frame of 16 kHz samples: its overall level and the level in each of
 * {@link BANDS}, in dB, floored (noise floors differ between what was played and what arrives).
 */
export function frameFeatures(samples: ArrayLike<number>): number[] {
  const re = new Float64Array(FFT_SIZE);
  const im = new Float64Array(FFT_SIZE);
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    sum += samples[i]! * samples[i]!;
    re[i] = samples[i]!;
  }
  fft(re, im);
  const bands = BANDS.map(([lo, hi]) => {
    let p = 0;
    const from = Math.round((lo * FFT_SIZE) / RATE);
    const to = Math.round((hi * FFT_SIZE) / RATE);
    for (let k = from; k < to; k++) p += re[k]! * re[k]! + im[k]! * im[k]!;
    // The mean power per sample of that band, comparable with the frame's own.
    return db((2 * p) / (samples.length * samples.length));
  });
  return [db(sum / Math.max(samples.length, 1)), ...bands];
}

/** Features of the 20 ms frames of 16 kHz mono s16le PCM. */
export function featuresOf16kMono(pcm: Buffer): number[][] {
  const n = RATE * FRAME_SECONDS;
  const out: number[][] = [];
  const frame = new Int16Array(n);
  for (let at = 0; at + n * 2 <= pcm.length; at += n * 2) {
    for (let i = 0; i < n; i++) frame[i] = pcm.readInt16LE(at + i * 2);
    out.push(frameFeatures(frame));
  }
  return out;
}

/**
 * Features of 48 kHz interleaved stereo s16le PCM: the channels averaged, and every three
 * samples averaged into one at 16 kHz (enough of a low-pass for bands below 3.5 kHz).
 */
function featuresOfDiscordPcm(pcm: Buffer): number[][] {
  const samples = Math.floor(pcm.length / 12);
  const mono = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    let sum = 0;
    for (let k = 0; k < 3; k++)
      sum += pcm.readInt16LE((i * 3 + k) * 4) + pcm.readInt16LE((i * 3 + k) * 4 + 2);
    mono.writeInt16LE(Math.round(sum / 6), i * 2);
  }
  return featuresOf16kMono(mono);
}

interface ReferenceLine {
  text: string;
  words: string[];
  levels: number[][];
  /** Each word's frames [start, end) in the line's recording. */
  spans: [number, number][];
}

/** What a segment was heard as: the words, each with its time in the segment (seconds from its start). */
export interface Heard {
  line: number;
  text: string;
  words: { word: string; start: number; end: number }[];
}

/**
 * The script of a peer. Lines with audio are matched by what arrives ({@link hear}); bare lines
 * are handed out in order of onset ({@link next}, {@link giveBack}).
 */
export class Script {
  #lines: string[] = [];
  #refs: ReferenceLine[] = [];
  #unscripted = 0;

  set(lines: readonly ScriptLine[]): void {
    this.#lines = lines.filter((l): l is string => typeof l === 'string');
    this.#refs = lines.flatMap((l) => (typeof l === 'string' ? [] : [reference(l.text, l.pcm)]));
    this.#unscripted = 0;
  }

  /** Whether the lines came with their audio (then segments are matched, not handed lines). */
  get byAudio(): boolean {
    return this.#refs.length > 0;
  }

  next(): string {
    return this.#lines.shift() ?? this.unscripted();
  }

  unscripted(): string {
    return `unscripted segment ${++this.#unscripted}`;
  }

  /**
   * A bare line cut off by a dropped socket was never finalized: the client sends its audio
   * again, and the provider recognises the same words again.
   */
  giveBack(text: string): void {
    if (!text.startsWith('unscripted segment ')) this.#lines.unshift(text);
  }

  get remaining(): readonly string[] {
    return this.#lines;
  }

  /**
   * What the levels of one voiced segment (20 ms frames from its first voiced frame to its
   * last) were heard as: the line they match and the words whose audio they cover for at least
   * half of each word. Null when they match no line (audio nobody scripted, or too little of it).
   */
  /** Whether a segment of these frames is long enough to tell which line it is. */
  judgeable(levels: readonly number[][]): boolean {
    return levels.length >= MIN_FRAMES;
  }

  hear(levels: readonly number[][]): Heard | null {
    const m = levels.length;
    if (!this.judgeable(levels)) return null;
    let best: (Alignment & { line: number }) | null = null;
    for (const [line, ref] of this.#refs.entries()) {
      const a = align(levels, ref.levels);
      // The earlier line wins a tie (the same words twice in one voice).
      if (a && (!best || a.score < best.score - 0.01)) best = { ...a, line };
    }
    if (!best || best.score > MAX_MEAN_DB) return null;
    const ref = this.#refs[best.line]!;
    const { from, to } = best;
    const scale = (to - from) / m || 1;
    const words: Heard['words'] = [];
    for (const [i, [s, e]] of ref.spans.entries()) {
      const covered = Math.max(0, Math.min(e, to) - Math.max(s, from));
      if (covered * 2 < e - s) continue;
      words.push({
        word: ref.words[i]!,
        start: Math.max(0, (s - from) / scale) * FRAME_SECONDS,
        end: Math.min(m, (e - from) / scale) * FRAME_SECONDS,
      });
    }
    return { line: best.line, text: words.map((w) => w.word).join(' '), words };
  }
}

interface Alignment {
  /** Reference frames [from, to) the segment covers. */
  from: number;
  to: number;
  /** Mean level difference along the alignment, in dB. */
  score: number;
}

/** A skipped reference frame (a packet that never arrived) costs this much, in dB. */
const SKIP_DB = 3;

/**
 * Where `query` (a segment's levels) lies in `ref` (a line's): dynamic time warping in which
 * every received frame is one reference frame, or skips one or two frames of the reference
 * (packets lost on the way: nothing stands in for them), starting and ending anywhere.
 */
/** Mean difference of two frames' features, in dB. */
function distance(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let k = 0; k < a.length; k++) sum += Math.abs(a[k]! - b[k]!);
  return sum / a.length;
}

function align(query: readonly number[][], ref: readonly number[][]): Alignment | null {
  const n = ref.length;
  if (n === 0) return null;
  let cost = new Float64Array(n);
  let start = new Int32Array(n);
  for (let j = 0; j < n; j++) {
    cost[j] = distance(query[0]!, ref[j]!);
    start[j] = j;
  }
  for (let i = 1; i < query.length; i++) {
    const next = new Float64Array(n).fill(Infinity);
    const nextStart = new Int32Array(n);
    const q = query[i]!;
    for (let j = 1; j < n; j++) {
      let c = cost[j - 1]!;
      let s = start[j - 1]!;
      if (j >= 2 && cost[j - 2]! + SKIP_DB < c) {
        c = cost[j - 2]! + SKIP_DB;
        s = start[j - 2]!;
      }
      if (j >= 3 && cost[j - 3]! + 2 * SKIP_DB < c) {
        c = cost[j - 3]! + 2 * SKIP_DB;
        s = start[j - 3]!;
      }
      if (c === Infinity) continue;
      next[j] = c + distance(q, ref[j]!);
      nextStart[j] = s;
    }
    cost = next;
    start = nextStart;
  }
  let end = -1;
  for (let j = 0; j < n; j++) if (end < 0 || cost[j]! < cost[end]!) end = j;
  if (end < 0 || cost[end] === Infinity) return null;
  return { from: start[end]!, to: end + 1, score: cost[end]! / query.length };
}

function reference(text: string, pcm: Buffer): ReferenceLine {
  const levels = featuresOfDiscordPcm(pcm);
  const words = text.split(/\s+/).filter(Boolean);
  // The voiced span: from the first frame above the floor to the last.
  let first = levels.findIndex((l) => l[0]! > FLOOR_DB + 10);
  let last = levels.findLastIndex((l) => l[0]! > FLOOR_DB + 10) + 1;
  if (first < 0) [first, last] = [0, levels.length];
  const step = (last - first) / Math.max(words.length, 1);
  const spans = words.map((_, i): [number, number] => [
    Math.round(first + i * step),
    Math.round(first + (i + 1) * step),
  ]);
  return { text, words, levels, spans };
}

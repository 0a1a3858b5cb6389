import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { OpusFrameEncoder } from './opus.ts';
import { monoToStereo, resampleMono } from './resample.ts';
import type { Speaker } from './speaker-channel.ts';

/**
 * Synthesized speech for tests and the replay tool: espeak-ng speaks a line, the line becomes
 * the 20 ms Opus packets Discord would send, and `playTurns` feeds a conversation of such
 * lines into a live session in real time (or faster).
 */

export const ESPEAK_PATH = '/usr/bin/espeak-ng';

/** Distinct espeak-ng voices, one per speaker in turn (voice + variant). */
export const SPEAKER_VOICES = ['en-us', 'en-gb', 'en+f3', 'en-gb-scotland+m3', 'en-us+f4', 'en-gb-x-rp+m7'];

export interface Pcm {
  sampleRate: number;
  channels: number;
  /** s16le, interleaved. */
  data: Buffer;
}

/**
 * Reads a PCM WAV. espeak-ng writing to a pipe cannot go back to fill in the sizes, so a data
 * chunk that claims more than there is simply runs to the end of the buffer.
 */
export function parseWav(buf: Buffer): Pcm {
  if (
    buf.length < 12 ||
    buf.toString('latin1', 0, 4) !== 'RIFF' ||
    buf.toString('latin1', 8, 12) !== 'WAVE'
  ) {
    throw new Error('Not a WAV file');
  }
  let off = 12;
  let fmt: { channels: number; sampleRate: number; bits: number; format: number } | null = null;
  while (off + 8 <= buf.length) {
    const id = buf.toString('latin1', off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === 'fmt ') {
      fmt = {
        format: buf.readUInt16LE(body),
        channels: buf.readUInt16LE(body + 2),
        sampleRate: buf.readUInt32LE(body + 4),
        bits: buf.readUInt16LE(body + 14),
      };
    } else if (id === 'data') {
      if (!fmt) throw new Error('WAV data before its format');
      if (fmt.format !== 1 || fmt.bits !== 16) throw new Error('Only 16-bit PCM WAV is supported');
      const end = Math.min(buf.length, body + size);
      const frameBytes = 2 * fmt.channels;
      const usable = end - body - ((end - body) % frameBytes);
      return { sampleRate: fmt.sampleRate, channels: fmt.channels, data: buf.subarray(body, body + usable) };
    }
    off = body + size + (size & 1);
  }
  throw new Error('WAV without a data chunk');
}

/** `text` spoken by espeak-ng as mono PCM at espeak's rate (22050 Hz). */
export function speak(
  text: string,
  opts: { voice?: string; wordsPerMinute?: number; espeakPath?: string } = {},
): Promise<Pcm> {
  const args = ['--stdout', '-v', opts.voice ?? 'en-us', '-s', String(opts.wordsPerMinute ?? 165), text];
  return new Promise((resolve, reject) => {
    const child = spawn(opts.espeakPath ?? ESPEAK_PATH, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new Error(`espeak-ng could not be run: ${e.message}`)));
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`espeak-ng exited with ${code}: ${Buffer.concat(err).toString().trim()}`));
        return;
      }
      try {
        const pcm = parseWav(Buffer.concat(out));
        resolve(pcm.channels === 1 ? pcm : { ...pcm, data: downmix(pcm) });
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

function downmix(pcm: Pcm): Buffer {
  const frames = pcm.data.length / (2 * pcm.channels);
  const out = Buffer.alloc(frames * 2);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < pcm.channels; c++) sum += pcm.data.readInt16LE((i * pcm.channels + c) * 2);
    out.writeInt16LE(Math.round(sum / pcm.channels), i * 2);
  }
  return out;
}

/** Mono PCM at any rate to Discord's 48 kHz stereo. */
export function toDiscordPcm(pcm: Pcm): Buffer {
  const mono = pcm.channels === 1 ? pcm.data : downmix(pcm);
  return monoToStereo(resampleMono(mono, pcm.sampleRate, 48_000));
}

/** 48 kHz stereo PCM as 20 ms Opus packets (the last one padded with silence). */
export function encodeDiscordOpus(pcm48kStereo: Buffer): Buffer[] {
  const encoder = new OpusFrameEncoder({ rate: 48_000, channels: 2 });
  try {
    return [...encoder.encode(pcm48kStereo), ...encoder.flush()];
  } finally {
    encoder.destroy();
  }
}

/** A line spoken as Discord would send it. */
export async function synthesizeOpus(
  text: string,
  opts: { voice?: string; wordsPerMinute?: number; espeakPath?: string } = {},
): Promise<{ packets: Buffer[]; seconds: number }> {
  const packets = encodeDiscordOpus(toDiscordPcm(await speak(text, opts)));
  return { packets, seconds: packets.length * 0.02 };
}

export interface Turn {
  speaker: Speaker;
  text: string;
  /** espeak-ng voice; default: one of SPEAKER_VOICES per speaker, in order of appearance. */
  voice?: string;
}

/** What `playTurns` drives: a live session, or anything else that takes Discord's audio. */
export interface AudioSink {
  pushOpus(speaker: Speaker, packet: Buffer): void;
  speakerStopped(key: string): void;
}

export interface PlayOptions {
  /** 1: real time; 10: ten times faster. Give the session `scaledClock(speed)` to match. */
  speed?: number;
  /** Silence between turns, in seconds of replayed time. Default 0.8. */
  pauseSeconds?: number;
  wordsPerMinute?: number;
  signal?: AbortSignal;
  /** Called as each turn starts, with its start in replayed seconds since the first packet. */
  onTurn?(turn: Turn, index: number, replayedSeconds: number): void;
}

/** Where each turn ended up on the replayed clock (seconds since the first packet). */
export interface PlayedTurn {
  turn: Turn;
  startSeconds: number;
  endSeconds: number;
}

/** A turn with its audio, ready to play. */
export interface SynthesizedTurn extends Turn {
  packets: Buffer[];
}

/** Synthesizes every turn (in parallel), one voice per speaker in order of appearance. */
export async function synthesizeTurns(
  turns: Turn[],
  opts: { wordsPerMinute?: number } = {},
): Promise<SynthesizedTurn[]> {
  const voices = new Map<string, string>();
  for (const turn of turns) {
    if (!voices.has(turn.speaker.key)) {
      voices.set(turn.speaker.key, turn.voice ?? SPEAKER_VOICES[voices.size % SPEAKER_VOICES.length]!);
    }
  }
  return Promise.all(
    turns.map(async (turn) => {
      const voice = turn.voice ?? voices.get(turn.speaker.key)!;
      const { packets } = await synthesizeOpus(turn.text, { voice, wordsPerMinute: opts.wordsPerMinute });
      return { ...turn, voice, packets };
    }),
  );
}

/**
 * Plays a conversation into `sink`: each turn's packets paced at 20 ms / speed, then the
 * speaker's stop, then a pause. Turns not synthesized yet are synthesized first, so that
 * synthesis never stretches the timing; to line the replayed clock up with a session's,
 * synthesize first and start the session just before playing.
 */
export async function playTurns(
  sink: AudioSink,
  input: Turn[] | SynthesizedTurn[],
  opts: PlayOptions = {},
): Promise<PlayedTurn[]> {
  const speed = opts.speed ?? 1;
  const pause = opts.pauseSeconds ?? 0.8;
  const ready = (t: Turn | SynthesizedTurn): t is SynthesizedTurn => 'packets' in t;
  const list: (Turn | SynthesizedTurn)[] = input;
  const turns = list.every(ready) ? list.filter(ready) : await synthesizeTurns(list, opts);
  const played: PlayedTurn[] = [];
  const t0 = performance.now();
  // Replayed seconds at which the next packet is due: pacing against the start (not the
  // previous packet) keeps timer lateness from adding up over a long replay.
  let cursor = 0;
  const until = async (replayedSeconds: number): Promise<void> => {
    const dueMs = (replayedSeconds * 1000) / speed - (performance.now() - t0);
    if (dueMs > 1) await delay(dueMs, undefined, { signal: opts.signal });
    // Ahead of time at a high speed: still let the session's own work (streams opening,
    // utterances arriving) run between packets, as it would between Discord's.
    else await new Promise((resolve) => setImmediate(resolve));
    opts.signal?.throwIfAborted();
  };
  for (let i = 0; i < turns.length; i++) {
    const turn = turns[i]!;
    const { packets } = turn;
    opts.onTurn?.(turn, i, cursor);
    const start = cursor;
    for (const packet of packets) {
      // A packet is sent once its 20 ms have been "captured".
      cursor += 0.02;
      await until(cursor);
      sink.pushOpus(turn.speaker, packet);
    }
    sink.speakerStopped(turn.speaker.key);
    played.push({ turn, startSeconds: start, endSeconds: cursor });
    if (i < turns.length - 1) {
      cursor += pause;
      await until(cursor);
    }
  }
  return played;
}

/** A clock (epoch ms) that runs `speed` times faster than the wall clock from now on. */
export function scaledClock(speed: number, base: () => number = Date.now): () => number {
  const origin = base();
  return () => origin + (base() - origin) * speed;
}

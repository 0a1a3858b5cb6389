import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SpeechError } from './types.ts';

/** What recordings are decoded to before they are split: 16 kHz mono 16-bit PCM (32 KB a second). */
const PIECE_SAMPLE_RATE = 16_000;
const BYTES_PER_SECOND = PIECE_SAMPLE_RATE * 2;
/** Loudness is judged over 100 ms frames: shorter than a word, longer than a plosive's gap. */
const FRAME_BYTES = BYTES_PER_SECOND / 10;
const WAV_HEADER_BYTES = 44;

/** A WAV file of 16-bit mono PCM: what every transcription server reads. */
export function wavFile(pcm: Buffer, sampleRate = PIECE_SAMPLE_RATE): Buffer {
  const h = Buffer.alloc(WAV_HEADER_BYTES);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + pcm.length, 4);
  h.write('WAVEfmt ', 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36);
  h.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([h, pcm]);
}

/** Root mean square of 16-bit samples. */
export function rms(pcm: Buffer): number {
  const n = Math.floor(pcm.length / 2);
  if (n === 0) return 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const s = pcm.readInt16LE(i * 2);
    sum += s * s;
  }
  return Math.sqrt(sum / n);
}

/**
 * Where to cut `window` (16-bit PCM): the middle of its quietest 100 ms frame, the latest one
 * among equally quiet frames so pieces stay as long as allowed. Even byte offset into `window`.
 */
export function quietestCut(window: Buffer): number {
  let best = -1;
  let bestLevel = Infinity;
  for (let at = 0; at + FRAME_BYTES <= window.length; at += FRAME_BYTES) {
    const level = rms(window.subarray(at, at + FRAME_BYTES));
    if (level <= bestLevel) {
      bestLevel = level;
      best = at;
    }
  }
  if (best < 0) return window.length - (window.length % 2);
  return best + FRAME_BYTES / 2;
}

/** One piece of a split recording: its bytes of PCM and where it starts, in seconds. */
export interface PcmPiece {
  offsetSeconds: number;
  pcm: Buffer;
}

/**
 * The pieces of a PCM file, each a WAV of at most `maxWavBytes`: a piece ends at the quietest
 * moment of its last quarter (at most 30 s), so a cut falls between words where the recording
 * has pauses. Read one piece at a time, so a recording of hours never sits in memory whole.
 */
export async function* pcmPieces(pcmPath: string, maxWavBytes: number): AsyncGenerator<PcmPiece> {
  const maxPcm = Math.floor((maxWavBytes - WAV_HEADER_BYTES) / FRAME_BYTES) * FRAME_BYTES;
  if (maxPcm < FRAME_BYTES * 10) throw new Error(`maxWavBytes ${maxWavBytes} is too small to split audio`);
  const search = Math.min(30 * BYTES_PER_SECOND, Math.floor(maxPcm / 4 / FRAME_BYTES) * FRAME_BYTES);
  let file: FileHandle | null = null;
  try {
    file = await open(pcmPath, 'r');
    const size = (await file.stat()).size;
    const total = size - (size % 2);
    let at = 0;
    while (at < total) {
      let length = Math.min(maxPcm, total - at);
      if (at + length < total) {
        const window = Buffer.alloc(search);
        await file.read(window, 0, search, at + length - search);
        length = length - search + quietestCut(window);
      }
      const pcm = Buffer.alloc(length);
      const { bytesRead } = await file.read(pcm, 0, length, at);
      yield { offsetSeconds: at / BYTES_PER_SECOND, pcm: pcm.subarray(0, bytesRead) };
      at += length;
    }
  } finally {
    await file?.close();
  }
}

/** Writes a stream to a file. */
export async function saveStream(audio: Readable, filePath: string, signal?: AbortSignal): Promise<void> {
  await pipeline(audio, createWriteStream(filePath), signal ? { signal } : {});
}

/**
 * Decodes any recording ffmpeg reads (MP3, M4A, WAV, OGG, WebM, FLAC, ...) to 16 kHz mono
 * PCM. ffmpeg is a program on the server, not a library: without it a recording too large for
 * the transcription server cannot be split, and the error says so.
 */
export async function decodeToPcm(
  inputPath: string,
  pcmPath: string,
  opts: { ffmpeg?: string; signal?: AbortSignal } = {},
): Promise<void> {
  const ffmpeg = opts.ffmpeg ?? 'ffmpeg';
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-i', inputPath];
  args.push('-vn', '-ac', '1', '-ar', String(PIECE_SAMPLE_RATE), '-f', 's16le', pcmPath);
  await new Promise<void>((resolve, reject) => {
    const child = spawn(ffmpeg, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 2000) stderr += d.toString();
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') {
        reject(
          new SpeechError(
            'the recording is larger than the transcription server takes, and ffmpeg, needed to split it, is not installed on this server',
            false,
          ),
        );
      } else reject(err);
    });
    child.on('close', (code) => {
      if (code === 0) resolve();
      else
        reject(
          new SpeechError(
            `the recording could not be decoded: ${stderr.trim().split('\n').at(-1) || `ffmpeg exited with ${code}`}`,
            false,
          ),
        );
    });
  });
}

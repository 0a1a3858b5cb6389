import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

/**
 * The 44-byte header of a 16 kHz mono 16-bit PCM WAV file with `dataBytes` of samples: enough
 * for the upload's content sniffing and for the speech peers. Sizes past 4 GiB are capped as
 * WAV's 32-bit fields require.
 */
export function wavHeader(dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(Math.min(0xffffffff, 36 + dataBytes), 4);
  h.write('WAVEfmt ', 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(16_000, 24);
  h.writeUInt32LE(32_000, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36);
  h.writeUInt32LE(Math.min(0xffffffff, dataBytes), 40);
  return h;
}

/** A whole WAV file: the header, then `dataBytes` of quiet noise (`silence`: zeros). */
export function wav(dataBytes: number, fill: 'noise' | 'silence' = 'noise'): Buffer {
  return Buffer.concat([
    wavHeader(dataBytes),
    fill === 'noise' ? randomBytes(dataBytes) : Buffer.alloc(dataBytes),
  ]);
}

/**
 * 16 kHz mono PCM with a loud tone at each [start, seconds] span and silence between: audio
 * whose "speech" is at known times, for the transcription peer to find.
 */
function phrasesPcm(spans: [number, number][], totalSeconds: number): Buffer {
  const pcm = Buffer.alloc(Math.round(totalSeconds * 16_000) * 2);
  for (const [start, seconds] of spans) {
    const from = Math.round(start * 16_000);
    const to = Math.min(pcm.length / 2, from + Math.round(seconds * 16_000));
    for (let i = from; i < to; i++)
      pcm.writeInt16LE(Math.round(8_000 * Math.sin((2 * Math.PI * 220 * i) / 16_000)), i * 2);
  }
  return pcm;
}

/** A WAV file of phrasesPcm. */
export const phrasesWav = (spans: [number, number][], totalSeconds: number): Buffer => {
  const pcm = phrasesPcm(spans, totalSeconds);
  return Buffer.concat([wavHeader(pcm.length), pcm]);
};

/** Debian's espeak-ng (apt-get install espeak-ng), where the voice bot's synthesizer runs it. */
const ESPEAK_PATH = '/usr/bin/espeak-ng';

/** Spoken `text` as a WAV file at `file` (espeak-ng, as the voice bot's synthesizer runs it). */
export function speechWavFile(file: string, text: string): void {
  execFileSync(ESPEAK_PATH, ['-w', file, text]);
}

/** The audio's length in seconds, decoded to its end (8 kHz mono 16-bit samples counted). */
export function decodedSeconds(file: string): number {
  const pcm = execFileSync(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-ar', '8000', '-'],
    {
      maxBuffer: 1024 * 1024 * 1024,
    },
  );
  return pcm.length / 16_000;
}

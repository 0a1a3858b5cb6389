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

/**
 * Recognises an audio container from its first bytes, so an upload is judged by what it
 * is, not by the type or name the browser claims. Covers the formats the session form
 * accepts (MP3, M4A/MP4/AAC, WAV, OGG, WebM).
 */
export type AudioFormat = 'mp3' | 'mp4' | 'aac' | 'wav' | 'ogg' | 'webm' | 'flac';

export const SNIFF_BYTES = 64;

export const MIME_BY_FORMAT: Record<AudioFormat, string> = {
  mp3: 'audio/mpeg',
  mp4: 'audio/mp4',
  aac: 'audio/aac',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  webm: 'audio/webm',
  flac: 'audio/flac',
};

const ascii = (b: Uint8Array, at: number, s: string): boolean => {
  if (b.length < at + s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[at + i] !== s.charCodeAt(i)) return false;
  return true;
};

/**
 * A frame header's fields must be legal too, not only its sync bits: eleven set bits
 * begin plenty of files that are not audio. MPEG: a version other than the reserved one,
 * layer I-III, a bitrate index other than 'bad' (15), a sample rate index other than 3.
 */
function mpegFrame(b1: number, b2: number): boolean {
  return (
    (b1 & 0xe0) === 0xe0 &&
    ((b1 >> 3) & 0x03) !== 0x01 &&
    (b1 & 0x06) !== 0 &&
    b2 >> 4 !== 0x0f &&
    ((b2 >> 2) & 0x03) !== 0x03
  );
}

/** ADTS: sync word, layer 00, and one of the 13 defined sampling frequencies. */
function adtsFrame(b1: number, b2: number): boolean {
  return (b1 & 0xf6) === 0xf0 && ((b2 >> 2) & 0x0f) < 13;
}

export function sniffAudio(head: Uint8Array): AudioFormat | null {
  // An ID3v2 tag: major version 2 to 4, revision never 0xFF.
  if (ascii(head, 0, 'ID3'))
    return (head[3] ?? 0) >= 2 && (head[3] ?? 0) <= 4 && head[4] !== 0xff ? 'mp3' : null;
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'wav';
  if (ascii(head, 0, 'OggS')) return 'ogg';
  if (ascii(head, 0, 'fLaC')) return 'flac';
  if (ascii(head, 4, 'ftyp')) return 'mp4';
  // EBML header: Matroska and WebM share it; audio from browsers is WebM.
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  const b0 = head[0] ?? 0;
  const b1 = head[1] ?? 0;
  const b2 = head[2] ?? 0xff;
  if (b0 === 0xff && adtsFrame(b1, b2)) return 'aac';
  if (b0 === 0xff && mpegFrame(b1, b2)) return 'mp3';
  return null;
}

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

export function sniffAudio(head: Uint8Array): AudioFormat | null {
  if (ascii(head, 0, 'ID3')) return 'mp3';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'wav';
  if (ascii(head, 0, 'OggS')) return 'ogg';
  if (ascii(head, 0, 'fLaC')) return 'flac';
  if (ascii(head, 4, 'ftyp')) return 'mp4';
  // EBML header: Matroska and WebM share it; audio from browsers is WebM.
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  const b0 = head[0] ?? 0;
  const b1 = head[1] ?? 0;
  if (b0 === 0xff && (b1 & 0xf6) === 0xf0) return 'aac'; // ADTS: sync word, layer 00
  if (b0 === 0xff && (b1 & 0xe0) === 0xe0 && (b1 & 0x06) !== 0) return 'mp3'; // MPEG audio frame sync, layer I-III
  return null;
}

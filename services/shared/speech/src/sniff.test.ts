import { describe, expect, it } from 'vitest';
import { sniffAudio } from './sniff.ts';

const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));

describe('sniffAudio', () => {
  it('recognises each accepted container by its magic bytes', () => {
    expect(sniffAudio(bytes('ID3', [4, 0, 0]))).toBe('mp3');
    expect(sniffAudio(bytes([0xff, 0xfb, 0x90, 0x64]))).toBe('mp3');
    expect(sniffAudio(bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '))).toBe('wav');
    expect(sniffAudio(bytes('OggS', [0, 2]))).toBe('ogg');
    expect(sniffAudio(bytes([0, 0, 0, 0x20], 'ftypM4A '))).toBe('mp4');
    expect(sniffAudio(bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f]))).toBe('webm');
    expect(sniffAudio(bytes([0xff, 0xf1, 0x50, 0x80]))).toBe('aac');
    expect(sniffAudio(bytes('fLaC'))).toBe('flac');
  });

  it('refuses things that only claim to be audio', () => {
    expect(sniffAudio(bytes('%PDF-1.7'))).toBeNull();
    expect(sniffAudio(bytes([0x89], 'PNG'))).toBeNull();
    expect(sniffAudio(bytes('RIFF', [0, 0, 0, 0], 'AVI '))).toBeNull();
    expect(sniffAudio(bytes('MZ'))).toBeNull();
    expect(sniffAudio(new Uint8Array())).toBeNull();
  });
});

import { createHash } from 'node:crypto';
import { UTTERANCE_ID_MAX } from '@chronicler/contracts';
import type { TranscriptionGap } from './speaker-stream.ts';

/** A file name for a speaker key (Discord ids are digits; anything else is made safe). */
export function fileSafe(key: string): string {
  const safe = key.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100);
  return safe.length > 0 ? safe : 'speaker';
}

export function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** `<speakerKey>:<part>:<id>`, through a digest when too long for the contract (still stable). */
export function utteranceIdOf(speakerKey: string, part: string | number, id: string): string {
  const full = `${speakerKey}:${part}:${id}`;
  if (full.length <= UTTERANCE_ID_MAX) return full;
  const digest = createHash('sha256').update(full).digest('hex').slice(0, 40);
  return `${speakerKey.slice(0, 100)}:${part}:${digest}`;
}

/** Session seconds as h:mm:ss (the transcript viewer's clock). */
function clockOf(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

/** The transcript line that marks a speaker's stretch the provider could not transcribe. */
export function gapLineText(gap: TranscriptionGap): string {
  const why = gap.reason === 'provider' ? 'the speech service failed' : 'every transcription stream was busy';
  return `[transcription unavailable from ${clockOf(gap.fromSeconds)} to ${clockOf(gap.toSeconds)}: ${why}; the audio is recorded]`;
}

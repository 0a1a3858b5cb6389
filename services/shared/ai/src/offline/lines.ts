/**
 * A transcript as the offline fallback reads it: numbered lines with their time and speaker,
 * terms for ranking, and quotes cut at a sentence. Nothing here knows a show, a platform or a
 * game system: only lines, speakers, words and times.
 */
import {
  formatOffset,
  OFFLINE_AI_MARKER,
  parseTranscriptLines,
  speakerLabel,
  STOP_WORDS,
} from '@chronicler/contracts';
import { stemmer } from 'stemmer';

export interface Line {
  /** Position among the transcript's non-blank lines. */
  pos: number;
  /** HH:MM:SS, or null for a line without a time. */
  time: string | null;
  speaker: string | null;
  text: string;
}

export function readLines(transcript: string): Line[] {
  return parseTranscriptLines(transcript).map((l, pos) => ({
    pos,
    time: l.seconds === null ? null : formatOffset(l.seconds),
    speaker: speakerLabel(l.speaker),
    text: l.text.trim(),
  }));
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** A word as indexed and searched: lowercase, no stop word, Porter stem; null to drop it. */
function term(word: string): string | null {
  const w = word.toLowerCase().replace(/’/g, "'").replace(/'s$/, '');
  if (STOP_WORDS.has(w) || w.length < 2) return null;
  return /^\d+$/.test(w) ? w : stemmer(w);
}

export function terms(text: string): string[] {
  return [...text.matchAll(WORD)].flatMap((m) => term(m[0]) ?? []);
}

export const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** A line's text within `max` characters, cut after a sentence (or a word) with an ellipsis. */
export function cut(text: string, max = 320): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const sentence = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '));
  if (sentence > max * 0.5) return `${head.slice(0, sentence + 1)} …`;
  return `${head.slice(0, head.lastIndexOf(' ') > 0 ? head.lastIndexOf(' ') : max)} …`;
}

/** `[HH:MM:SS]` (the chat service makes it a link), or a time link into the session's viewer. */
function stamp(line: Line, sessionId?: string): string {
  if (!line.time) return '';
  return sessionId === undefined
    ? `[${line.time}]`
    : `[[${line.time}]](/sessions/${sessionId}#t=${line.time})`;
}

/** A line quoted as said: `"text" (Speaker) [time]`. */
export function quoteLine(line: Line, opts: { sessionId?: string; max?: number } = {}): string {
  const who = line.speaker ? ` (${line.speaker})` : '';
  const at = stamp(line, opts.sessionId);
  return `"${cut(line.text, opts.max).replace(/"/g, '”')}"${who}${at ? ` ${at}` : ''}`;
}

/** The heading every offline text starts with: the marker the app shows its notice for. */
export const offlineText = (body: string): string => `${OFFLINE_AI_MARKER}\n${body.trim()}\n`;

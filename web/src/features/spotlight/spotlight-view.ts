// What the spotlight charts show: pure functions, unit-tested.
import { formatTranscriptLine, type SessionSpeakers } from '@chronicler/contracts';
import type { ViewLine } from '../transcripts/transcript-view.ts';

/** 0.4762 → '48%'. */
export const percent = (share: number | null): string =>
  share === null ? '—' : `${Math.round(share * 100)}%`;

/** 754 → '12 min 34 s', 9 → '9 s'; null (a session counted by lines) → '—'. */
export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${m} min` : `${m} min ${s % 60} s`;
}

/** How a speaker is shown: the name, with the character played when there is one. */
export const who = (s: { key: string; character: string }): string =>
  s.character ? `${s.key} (${s.character})` : s.key;

/**
 * The live viewer's final lines back in the stored form, so the running spotlight is counted
 * by the very rules the server uses. A line without a time keeps none (and the session is
 * then counted by lines, as on the server).
 */
export function contentOfLines(lines: readonly ViewLine[]): string {
  return lines
    .filter((l) => !l.interim)
    .map((l) => {
      if (!l.speaker) return l.text;
      if (l.seconds === null) return `${l.speaker.replace(/:/g, ' ')}: ${l.text}`;
      return formatTranscriptLine({ seconds: l.seconds, speaker: l.speaker, text: l.text });
    })
    .join('\n');
}

/** The session's speaker names as the spotlight reads them (label → name, character). */
export function namesOf(
  speakers: SessionSpeakers | undefined,
): ReadonlyMap<string, { name: string; character: string }> {
  return new Map((speakers?.speakers ?? []).map((s) => [s.label, { name: s.name, character: s.character }]));
}

/** 0 → 'latest session', 2 → '2 sessions ago', null → 'never'. */
export function sinceLabel(since: number | null): string {
  if (since === null) return 'never';
  if (since === 0) return 'latest session';
  return since === 1 ? '1 session ago' : `${since} sessions ago`;
}

/** 1 → '1 line', 3 → '3 lines'. */
export const lines = (n: number): string => `${n} ${n === 1 ? 'line' : 'lines'}`;

import { useMemo } from 'react';
import { useLocation } from 'react-router-dom';
import { firstLineAtOrAfter, parseTimeInput, type ViewLine } from '../transcripts/transcript-view.ts';

/** A moment of a session named by a link: a time (#t=HH:MM:SS) or a line of its text (#line=N). */
export type Moment = { seconds: number } | { line: number };

/** Reads `#t=HH:MM:SS` (or MM:SS) and `#line=N` (N counts the text's non-blank lines from 0). */
function parseMoment(hash: string): Moment | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const t = params.get('t');
  if (t !== null) {
    const seconds = parseTimeInput(t);
    return seconds === null ? null : { seconds };
  }
  const line = params.get('line');
  if (line !== null && /^\d{1,7}$/.test(line)) return { line: Number(line) };
  return null;
}

/** The row a moment points at: the first line at or after its time, or its stored line; -1 when none. */
export function momentIndex(rows: readonly ViewLine[], moment: Moment): number {
  if ('seconds' in moment) return firstLineAtOrAfter(rows, moment.seconds);
  return rows.findIndex((row) => row.key === `c${moment.line}`);
}

/** The moment the page's address names, the same object while the hash stays the same. */
export function useMoment(): Moment | null {
  const { hash } = useLocation();
  return useMemo(() => parseMoment(hash), [hash]);
}

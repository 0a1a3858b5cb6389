/**
 * Which lines answer a question, from what the full-text index tells of them: BM25 over two
 * fields, the line itself and its neighbours (the line before and the two after: an answer often
 * sits in the line after the one that repeats the question's words), with the counts PostgreSQL
 * keeps in each line's tsvector and the document frequencies its GIN index gives. Nothing here
 * knows a show or a game system: only terms, lines and their order.
 */
import { formatOffset, parseTranscriptLine, speakerLabel, type PassageLine } from '@chronicler/contracts';
import type { IndexedLine } from '../db/passage-store.ts';

// BM25+ as MiniSearch scores it (k 1.2, b 0.7, d 0.5): the library the offline chat ranked with
// before the index did, whose results on real sessions this keeps.
const K1 = 1.2;
const B = 0.7;
const D = 0.5;
/** Weight of a line's own words against its neighbours' (as the line is what gets quoted). */
const OWN = 2;
const NEAR = 0.6;
/** Lines whose neighbour window holds a line: the one before it and the two after it. */
const NEAR_LINES = 3;
/** Lines kept before and after the answering line in a passage. */
export const PASSAGE_BEFORE = 1;
export const PASSAGE_AFTER = 2;

export interface CorpusStats {
  /** Non-blank lines in the sessions searched. */
  lines: number;
  /** Lines holding each term. */
  df: Map<string, number>;
}

export const lineKey = (tid: string, ord: number): string => `${tid}:${ord}`;

/** The fetched lines by session and place. */
export function indexLines(lines: IndexedLine[]): Map<string, IndexedLine> {
  return new Map(lines.map((l) => [lineKey(l.tid, l.ord), l]));
}

function bm25(
  tf: Record<string, number>,
  len: number,
  avgLen: number,
  terms: string[],
  idf: Map<string, number>,
  matched: Set<string>,
): number {
  let score = 0;
  for (const t of terms) {
    const f = tf[t] ?? 0;
    if (f === 0) continue;
    matched.add(t);
    score += idf.get(t)! * (D + (f * (K1 + 1)) / (f + K1 * (1 - B + (B * len) / avgLen)));
  }
  return score;
}

const idfOf = (lines: number, df: number) => Math.log(1 + (lines - df + 0.5) / (df + 0.5));

/**
 * The fetched lines that share a term with the question, or sit next to one that does, best
 * first (ties in session order). A line's score sums both fields over the question's terms and
 * is multiplied by how many of the terms it matched in either (MiniSearch's "quality").
 */
export function rankLines(
  fetched: Map<string, IndexedLine>,
  terms: string[],
  stats: CorpusStats,
): { line: IndexedLine; score: number }[] {
  if (terms.length === 0 || fetched.size === 0) return [];
  const idfOwn = new Map<string, number>();
  const idfNear = new Map<string, number>();
  for (const t of terms) {
    const df = stats.df.get(t) ?? 0;
    idfOwn.set(t, idfOf(stats.lines, df));
    idfNear.set(t, idfOf(stats.lines, Math.min(stats.lines, NEAR_LINES * df)));
  }
  let lenSum = 0;
  for (const l of fetched.values()) lenSum += l.len;
  const avgLen = lenSum / fetched.size || 1;
  const ranked: { line: IndexedLine; score: number }[] = [];
  for (const l of fetched.values()) {
    const matched = new Set<string>();
    const tf: Record<string, number> = {};
    let len = 0;
    for (const d of [-1, 1, 2]) {
      const n = fetched.get(lineKey(l.tid, l.ord + d));
      if (!n) continue;
      len += n.len;
      for (const [t, f] of Object.entries(n.tf)) tf[t] = (tf[t] ?? 0) + f;
    }
    const score =
      OWN * bm25(l.tf, l.len, avgLen, terms, idfOwn, matched) +
      NEAR * bm25(tf, len, avgLen * NEAR_LINES, terms, idfNear, matched);
    if (score > 0) ranked.push({ line: l, score: score * matched.size });
  }
  return ranked.sort(
    (a, b) => b.score - a.score || a.line.tid.localeCompare(b.line.tid) || a.line.ord - b.line.ord,
  );
}

/** An indexed line as a passage shows it: time, speaker (by display name) and text. */
export function passageLine(l: IndexedLine, names?: ReadonlyMap<string, string>): PassageLine {
  const parsed = parseTranscriptLine(l.body);
  const label = speakerLabel(parsed?.speaker ?? null);
  return {
    line: l.ord,
    seconds: l.seconds,
    speaker: label === null ? null : (names?.get(label) ?? label),
    text: parsed ? parsed.text : l.body,
  };
}

/** Where a line opens in the viewer: its moment, or the line when it has no time. */
export function momentLink(tid: string, line: { line: number; seconds: number | null }): string {
  return line.seconds !== null
    ? `/sessions/${tid}#t=${formatOffset(line.seconds)}`
    : `/sessions/${tid}#line=${line.line}`;
}

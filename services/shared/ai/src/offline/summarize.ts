/**
 * Extractive summaries. A session summary is the transcript's most central sentences: each
 * sentence scored by the cosine of its TF-IDF vector with the whole transcript's (centroid
 * summarisation), discounted for table talk and very short lines, nudged by a position prior
 * and by who speaks most (at a table, the game master narrates), then picked greedily with
 * maximal marginal relevance so near-duplicates don't crowd out the rest, and shown in
 * transcript order. A campaign summary is built from its sessions' summaries.
 */
import type { SessionDigest } from '../engine.ts';
import { tokenize } from '../retrieval.ts';
import {
  citation,
  clip,
  cosine,
  inverseDocFreq,
  mentions,
  namedTerms,
  splitSentences,
  tableTalk,
  tfidf,
  transcriptSentences,
  type Sentence,
  type Vector,
} from './text.ts';

export const OFFLINE_SUMMARY_NOTE =
  '_Offline summary (no AI model is configured): sentences picked from the transcript._';
export const OFFLINE_CAMPAIGN_NOTE =
  "_Offline campaign summary (no AI model is configured): built from the sessions' summaries._";

export interface SummaryOptions {
  /** At most this many sentences (default 12). */
  maxSentences?: number;
  /** At most about this many characters of quoted sentences (default 1,500). */
  maxChars?: number;
}

/** Sentences quoted in a summary are cut to this length so one monologue can't fill it. */
const MAX_SENTENCE_CHARS = 280;
/** Only the best-scored sentences go through MMR; the rest can't win anyway. */
const CANDIDATES = 400;
const MMR_LAMBDA = 0.7;
/** Below this much budget left, no sentence worth quoting fits. */
const MIN_SENTENCE_CHARS = 40;
/** A sentence this similar to one already picked is a near-duplicate. */
const DUPLICATE_COSINE = 0.6;

interface Scored extends Sentence {
  vector: Vector;
  score: number;
}

/** The chosen sentences of a transcript, in transcript order. */
export function pickSummarySentences(transcript: string, opts: SummaryOptions = {}): Sentence[] {
  const maxSentences = opts.maxSentences ?? 12;
  const maxChars = opts.maxChars ?? 1500;
  const sentences = transcriptSentences(transcript);
  if (sentences.length === 0) return [];
  const tokens = sentences.map((s) => tokenize(s.text));
  const idf = inverseDocFreq(tokens);

  // The centroid: the document's own TF-IDF vector (all sentences' terms together).
  const centroid = tfidf(tokens.flat(), idf);

  // Who speaks the most words narrates; at a table that is the game master.
  const wordsBySpeaker = new Map<string, number>();
  for (const [i, s] of sentences.entries()) {
    if (s.speaker) wordsBySpeaker.set(s.speaker, (wordsBySpeaker.get(s.speaker) ?? 0) + tokens[i]!.length);
  }
  const narrator = [...wordsBySpeaker.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  const lastLine = sentences.at(-1)!.line || 1;

  const scored: Scored[] = [];
  for (const [i, s] of sentences.entries()) {
    const toks = tokens[i]!;
    if (toks.length < 3) continue;
    const vector = tfidf(toks, idf);
    let score = cosine(vector, centroid);
    // Short lines carry little; very long ones get cut when quoted, so a mild cap.
    if (toks.length < 6) score *= 0.5;
    else if (toks.length > 45) score *= 0.85;
    score *= 1 - 0.8 * tableTalk(s.text);
    if (s.text.endsWith('?')) score *= 0.8;
    if (narrator && s.speaker === narrator && wordsBySpeaker.size > 1) score *= 1.25;
    // Position prior: a session's set-up and its ending tend to say what it was about.
    const position = s.line / lastLine;
    if (position > 0.03 && position < 0.15) score *= 1.1;
    else if (position > 0.9) score *= 1.05;
    if (score > 0) scored.push({ ...s, vector, score });
  }
  scored.sort((a, b) => b.score - a.score || a.line - b.line);
  const pool = scored.slice(0, CANDIDATES);

  const chosen: Scored[] = [];
  let chars = 0;
  const best = pool[0]?.score ?? 1;
  // Each candidate's highest similarity to what is chosen so far, updated per pick.
  const similarity = new Float64Array(pool.length);
  const taken = new Uint8Array(pool.length);
  while (chosen.length < maxSentences && maxChars - chars >= MIN_SENTENCE_CHARS) {
    let pick = -1;
    let pickValue = -Infinity;
    for (const [k, c] of pool.entries()) {
      if (taken[k] || similarity[k]! >= DUPLICATE_COSINE) continue;
      const length = Math.min(c.text.length, MAX_SENTENCE_CHARS);
      if (chosen.length > 0 && chars + length > maxChars) continue;
      const value = MMR_LAMBDA * (c.score / best) - (1 - MMR_LAMBDA) * similarity[k]!;
      if (value > pickValue) {
        pickValue = value;
        pick = k;
      }
    }
    if (pick < 0) break;
    const c = pool[pick]!;
    taken[pick] = 1;
    chosen.push(c);
    chars += Math.min(c.text.length, MAX_SENTENCE_CHARS);
    for (const [k, other] of pool.entries()) {
      if (!taken[k]) similarity[k] = Math.max(similarity[k]!, cosine(other.vector, c.vector));
    }
  }
  return chosen
    .sort((a, b) => a.line - b.line)
    .map(({ time, speaker, text, line }) => ({ time, speaker, text, line }));
}

/** The offline session summary: a notice, then the picked sentences as a markdown list. */
export function summarizeSessionText(name: string, transcript: string, opts: SummaryOptions = {}): string {
  const picked = pickSummarySentences(transcript, opts);
  if (picked.length === 0) {
    return `${OFFLINE_SUMMARY_NOTE}\n\nThe transcript of ${name} has no sentences to summarise.`;
  }
  const items = picked.map((s) => `- ${citation(s, clip(s.text, MAX_SENTENCE_CHARS))}`);
  return `${OFFLINE_SUMMARY_NOTE}\n\n${items.join('\n')}`;
}

/**
 * The key sentences of a session summary, whatever wrote it: offline notes, markdown marks
 * and the "[time] SPEAKER:" prefixes of quoted lines are dropped.
 */
export function summarySentences(summary: string): string[] {
  const out: string[] = [];
  for (const rawLine of summary.split(/\r?\n/)) {
    let line = rawLine.trim();
    if (!line || /^_offline\b/i.test(line) || (/^#+\s/.test(line) && line.length < 60)) continue;
    line = line
      .replace(/^(?:[-*+>]|\d+[.)])\s+/, '')
      .replace(/^\[\d{1,3}:\d\d:\d\d\]\s*/, '')
      .replace(/^[\p{Lu}\p{N}][\p{L}\p{N}'’._ -]{0,39}:\s+/u, (m) => (m.length < 42 ? '' : m))
      .replace(/\*\*|__|`/g, '')
      .trim();
    if (line) out.push(...splitSentences(line));
  }
  return out;
}

function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 10);
}

/** The offline campaign summary: an overview of recurring names, then one bullet per session. */
export function summarizeCampaignText(name: string, sessions: SessionDigest[]): string {
  const ordered = [...sessions].sort((a, b) => Date.parse(a.date) - Date.parse(b.date));
  const withSummary = ordered.filter((s) => s.summary.trim().length > 0);
  const sentencesBySession = new Map(ordered.map((s) => [s, summarySentences(s.summary)]));

  // Salient names: those found in the most sessions, then most often.
  const perSession = new Map<string, { sessions: number; count: number }>();
  for (const s of withSummary) {
    for (const { term, count } of namedTerms(sentencesBySession.get(s)!)) {
      const entry = perSession.get(term) ?? { sessions: 0, count: 0 };
      entry.sessions += 1;
      entry.count += count;
      perSession.set(term, entry);
    }
  }
  const salient = [...perSession.entries()]
    .sort((a, b) => b[1].sessions - a[1].sessions || b[1].count - a[1].count)
    .slice(0, 6)
    .map(([term]) => term);

  const lines: string[] = [OFFLINE_CAMPAIGN_NOTE, ''];
  const count = `${ordered.length} session${ordered.length === 1 ? '' : 's'}`;
  if (ordered.length === 0) {
    lines.push(`${name} has no sessions yet.`);
    return lines.join('\n');
  }
  if (withSummary.length === 0) {
    lines.push(`${name} has ${count}, none of them summarised yet: summarise a session first.`);
  } else if (salient.length > 0) {
    lines.push(
      `${name} spans ${count}. The names that come up most are ${joinList(salient.map((t) => `**${t}**`))}.`,
    );
  } else {
    lines.push(`${name} spans ${count}.`);
  }
  lines.push('');
  for (const s of ordered) {
    const key = keySentences(sentencesBySession.get(s)!, salient);
    const label = `**${s.name}** (${formatDate(s.date)})`;
    lines.push(key ? `- ${label}: ${key}` : `- ${label}: no summary yet.`);
  }
  return lines.join('\n');
}

/** One or two sentences of a session summary: the first, and a second naming a salient term. */
function keySentences(sentences: string[], salient: string[]): string {
  const usable = sentences.filter((s) => tokenize(s).length >= 3);
  if (usable.length === 0) return sentences.length > 0 ? clip(sentences[0]!, 220) : '';
  const first = usable[0]!;
  const second =
    usable.slice(1).find((s) => salient.some((t) => mentions(s, t))) ??
    (first.length < 120 ? usable[1] : undefined);
  return [first, second]
    .filter((s): s is string => Boolean(s))
    .map((s) => clip(s, 220))
    .join(' ');
}

export function joinList(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * Passage retrieval over a transcript: which lines matter for a question. The OpenAI engine
 * uses it to send only the relevant part of a long transcript; the offline engine answers
 * from it directly. Ranking is BM25 over transcript lines (each line a document, its speaker
 * name counted as terms so "what did Matt say" finds Matt's lines), then each hit is widened
 * by its neighbours so a quoted line keeps the exchange around it.
 */
import { parseTranscriptLine } from '@chronicler/contracts';

// Function words that match almost every line; ranking on them only adds noise. Question
// words ("what", "who") are here too: a question's content is its nouns and verbs.
const STOP_WORDS_LIST =
  `a about above after again against all also am an and any are aren't as at be because been before
  being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
  don't down during each even ever every few for from further get gets got had hadn't has hasn't have
  haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll
  i'm i've if in into is isn't it it's its itself just let's like me more most much mustn't my myself
  no nor not now of off on once only or other ought our ours ourselves out over own really same shan't
  she she'd she'll she's should shouldn't so some such than that that's the their theirs them
  themselves then there there's these they they'd they'll they're they've this those through to too
  under until up upon us very was wasn't we we'd we'll we're we've were weren't what what's when when's
  where where's which while who who's whom why why's will with won't would wouldn't you you'd you'll
  you're you've your yours yourself yourselves yes yeah okay ok oh um uh hmm huh gonna wanna gotta
  yep nope mm mhm ah well right tell said say says did does done happen happened happens
  thing things something anything else kind sort lot bit go going went come came`.split(/\s+/);

/** Words too common to carry meaning on their own (lowercase, apostrophes kept). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  STOP_WORDS_LIST.flatMap((w) => [w, w.replace(/'/g, '')]).filter(Boolean),
);

/**
 * A light suffix stripper (a small subset of Porter's first steps): enough that "dragons",
 * "dragon's" and "dragon", or "attacking" and "attacked", meet on one term. It only has to
 * be consistent between query and lines, not linguistically right.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith("'s")) w = w.slice(0, -2);
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('ss') || w.endsWith('us') || w.endsWith('is')) return w;
  if (w.endsWith('ing') && w.length > 5) return undouble(w.slice(0, -3));
  if (w.endsWith('ed') && w.length > 4) return undouble(w.slice(0, -2));
  if (w.endsWith('es') && w.length > 4 && /(?:sh|ch|x|z)es$/.test(w)) return w.slice(0, -2);
  if (w.endsWith('s') && w.length > 3) return w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  // "stopp(ed)" -> "stop", but not "kill(ed)" -> "kil": keep l, s and z doubles.
  if (w.length > 3 && w.at(-1) === w.at(-2) && !/[lsz]/.test(w.at(-1)!)) return w.slice(0, -1);
  return w;
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** Lowercased, punctuation-free, stop-word-free, stemmed terms of a text, in order. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0].replace(/’/g, "'");
    if (STOP_WORDS.has(word)) continue;
    // Single letters and bare numbers under 3 digits match far too much to rank on.
    if (word.length < 2 || /^\d{1,2}$/.test(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}

export interface PassageOptions {
  /** The most characters the returned text may have. */
  maxChars: number;
  /** Neighbouring lines kept on each side of a matching line (default 1). */
  context?: number;
}

export interface Passages {
  /** The chosen lines as written in the transcript, in order; '…' marks skipped lines. */
  text: string;
  /** The chosen lines' 0-based indexes in `transcript.split('\n')`, ascending. */
  lines: number[];
}

/** Marks a gap between two non-adjacent chosen windows, so a reader knows lines were left out. */
export const PASSAGE_GAP = '…';

const K1 = 1.2;
// Lines vary from 'Yes.' to minute-long monologues: full length normalisation (0.75) would
// bury the long narration where names are introduced.
const B = 0.5;

interface Entry {
  index: number;
  text: string;
}

/**
 * BM25 scores of the transcript's non-blank lines that share a term with `query`, best
 * first (ties in transcript order). `index` is the line's 0-based index in
 * `transcript.split('\n')`; `pos` its position among the non-blank lines.
 */
export function rankLines(
  transcript: string,
  query: string,
): { ranked: { pos: number; index: number; score: number }[]; entries: Entry[] } {
  const queryTerms = [...new Set(tokenize(query))];
  const entries: Entry[] = [];
  if (queryTerms.length === 0) return { ranked: [], entries };

  const wanted = new Set(queryTerms);
  const termsOf: Map<string, number>[] = [];
  const lengths: number[] = [];
  const docFreq = new Map<string, number>();
  let totalLength = 0;
  for (const [index, rawLine] of transcript.split('\n').entries()) {
    const text = rawLine.replace(/\r$/, '').trim();
    if (!text) continue;
    const parsed = parseTranscriptLine(text);
    const tokens = tokenize(parsed?.speaker ? `${parsed.speaker} ${parsed.text}` : text);
    const terms = new Map<string, number>();
    for (const t of tokens) {
      if (wanted.has(t)) terms.set(t, (terms.get(t) ?? 0) + 1);
    }
    for (const t of terms.keys()) docFreq.set(t, (docFreq.get(t) ?? 0) + 1);
    entries.push({ index, text });
    termsOf.push(terms);
    lengths.push(tokens.length);
    totalLength += tokens.length;
  }
  const n = entries.length;
  const avgLength = totalLength / n || 1;
  const idf = new Map<string, number>();
  for (const [t, df] of docFreq) idf.set(t, Math.log(1 + (n - df + 0.5) / (df + 0.5)));

  const ranked: { pos: number; index: number; score: number }[] = [];
  for (let pos = 0; pos < n; pos++) {
    const terms = termsOf[pos]!;
    if (terms.size === 0) continue;
    let score = 0;
    for (const [t, tf] of terms) {
      score += (idf.get(t)! * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * lengths[pos]!) / avgLength));
    }
    // Lucene's coordination factor: a line with more of the question's terms beats one that
    // repeats a single common term.
    score *= terms.size / queryTerms.length;
    ranked.push({ pos, index: entries[pos]!.index, score });
  }
  ranked.sort((a, b) => b.score - a.score || a.pos - b.pos);
  return { ranked, entries };
}

/**
 * The transcript lines most relevant to `query`, with `context` neighbouring lines each side,
 * in transcript order, within `maxChars`. Empty when no line shares a term with the query.
 * Blank lines are never chosen; a single matching line longer than `maxChars` is cut.
 */
export function selectPassages(transcript: string, query: string, opts: PassageOptions): Passages {
  const maxChars = Math.max(0, Math.floor(opts.maxChars));
  const context = Math.max(0, Math.floor(opts.context ?? 1));
  if (maxChars === 0) return { text: '', lines: [] };
  const { ranked, entries } = rankLines(transcript, query);
  if (ranked.length === 0) return { text: '', lines: [] };
  const n = entries.length;

  // Greedy by rank: add a hit's window when the whole text still fits, else the hit alone.
  const chosen = new Uint8Array(n);
  let count = 0;
  let runs = 0;
  let chars = 0;
  const size = (c: number, r: number, len: number) =>
    c === 0 ? 0 : len + (c - 1) + (r - 1) * (PASSAGE_GAP.length + 1);

  const tryAdd = (positions: number[]): boolean => {
    const added: number[] = [];
    let c = count;
    let r = runs;
    let len = chars;
    for (const p of positions) {
      if (chosen[p]) continue;
      chosen[p] = 1;
      added.push(p);
      c += 1;
      len += entries[p]!.text.length;
      r += 1 - (p > 0 && chosen[p - 1] ? 1 : 0) - (p < n - 1 && chosen[p + 1] ? 1 : 0);
    }
    if (added.length === 0) return true;
    if (size(c, r, len) > maxChars) {
      for (const p of added) chosen[p] = 0;
      return false;
    }
    count = c;
    runs = r;
    chars = len;
    return true;
  };

  for (const { pos } of ranked) {
    if (size(count, runs, chars) >= maxChars) break;
    const window: number[] = [pos];
    for (let d = 1; d <= context; d++) {
      if (pos - d >= 0) window.push(pos - d);
      if (pos + d < n) window.push(pos + d);
    }
    if (!tryAdd(window)) tryAdd([pos]);
  }

  if (count === 0) {
    // The best line alone is longer than the budget: its start is better than nothing.
    const best = entries[ranked[0]!.pos]!;
    return { text: cutAtWord(best.text, maxChars), lines: [best.index] };
  }

  const parts: string[] = [];
  const lines: number[] = [];
  for (let p = 0; p < n; p++) {
    if (!chosen[p]) continue;
    if (parts.length > 0 && !chosen[p - 1]) parts.push(PASSAGE_GAP);
    parts.push(entries[p]!.text);
    lines.push(entries[p]!.index);
  }
  return { text: parts.join('\n'), lines };
}

function cutAtWord(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  if (maxChars <= 1) return text.slice(0, maxChars);
  const cut = text.slice(0, maxChars - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > maxChars / 2 ? cut.slice(0, space) : cut}…`;
}

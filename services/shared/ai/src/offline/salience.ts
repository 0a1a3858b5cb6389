/**
 * Which sentences of a short transcript a person would put in its summary, picked by the words
 * they would use. Each word of the window gets the probability that a written summary of it
 * contains that word, from a logistic regression over what the word does in the window (how
 * often and how widely it occurs, whether it is a name, a number, a rules term or filler, who
 * says it, where it first comes up, the best sentence it is in); each pair of adjacent words
 * gets one too. Sentences are then added while they raise the expected ROUGE-1 and ROUGE-2 F1 of the
 * summary against a reference of about `REFERENCE_WORDS` words: a sentence is worth the
 * probable words and word pairs it brings that the summary lacks, against its length. This is
 * the word-importance approach of Hong and Nenkova (2014, "Improving the Estimation of Word
 * Importance for News Multi-Document Summarization"), with features for a table's talk.
 *
 * The weights were fitted on the CRD3 aligned pairs of five episodes (Critical Role Dungeons
 * and Dragons Dataset, Rameshkumar and Bailey 2020, CC BY-SA 4.0); `pnpm eval` refits them
 * leaving each episode out in turn and scores it with the rest; when the weights here are no
 * longer the fit on all five (after a change to the features), it prints that fit to paste.
 * Only these few numbers come from the data: no word of it is kept.
 */
import { STOP_WORDS } from '../retrieval.ts';

/** The weights of the two regressions (see wordFeatures and pairFeatures for their order). */
export interface SalienceModel {
  words: readonly number[];
  pairs: readonly number[];
}

/** A sentence that may go into the summary, as it would read there. */
export interface SalienceCandidate {
  /** The sentence as narrative (see narrate). */
  prose: string;
  /** Its score as summary material (centrality and quality, see summarize). */
  score: number;
  /** Whether the game master said it. */
  narrator: boolean;
}

/** The expected reference length the selection aims at: 40 words did best on the tuned pairs. */
export const REFERENCE_WORDS = 40;

/** Fitted by `pnpm eval -- --fit` on the tuned episodes' 330 aligned pairs. */
export const SALIENCE: SalienceModel = {
  words: [
    -2.4282, 1.5886, -0.4945, 0.7357, 0.1957, 0.3633, 0.1774, 0.1934, -0.0817, 0.0108, -0.8227, 0.6179,
    -0.0874, -0.9097, 0.2423, -0.6479, -0.7013,
  ],
  pairs: [-0.3141, 0.2791, 0.2937, 1.55, -4.1829, 0.2728, -0.4541, 0.8835, -0.9539],
};

/** ROUGE's tokens: lowercase letters and digits. */
export function rougeTokens(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

const DETERMINERS = new Set(
  'the a an his her their its my your our this that these those some each every'.split(' '),
);
// The game's rules and dice: what a summary of the story leaves out.
const RULES =
  /^(?:roll|rolls|rolled|rolling|damage|points?|hit|hits|attack|attacks|check|save|saving|throw|advantage|disadvantage|bonus|action|actions|reaction|turn|turns|initiative|feet|foot|range|speed|dc|ac|hp|modifier|spell|slot|slots|level|levels|d4|d6|d8|d10|d12|d20|plus|total|natural|nat|concentration|stealth|perception|investigation|insight|athletics|acrobatics|dice|die)$/;
const FILLER = new Set(
  'okay ok yeah yes yep no nope oh ah um uh hmm huh wow whoa cool nice great awesome sure right guys dude man like just really gonna wanna gotta fuck fucking shit god damn so well'.split(
    ' ',
  ),
);

/**
 * The features of each word of the window, in the order of SalienceModel.words: a constant,
 * log count, share of sentences, share written capitalised mid-sentence, stop word, a party
 * character's name, log window tokens, share said by the game master, first sentence's
 * position, length, number, the best score of a sentence holding it, share in questions, log
 * sentences, share after a determiner, rules term, filler.
 */
export function wordFeatures(
  cands: readonly SalienceCandidate[],
  characters: readonly string[],
): Map<string, number[]> {
  const count = new Map<string, number>();
  const sentences = new Map<string, number>();
  const capitals = new Map<string, number>();
  const narrated = new Map<string, number>();
  const first = new Map<string, number>();
  const best = new Map<string, number>();
  const questions = new Map<string, number>();
  const determined = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, v = 1) => m.set(k, (m.get(k) ?? 0) + v);
  const n = cands.length;
  const top = Math.max(...cands.map((c) => c.score)) || 1;
  const party = new Set(characters.flatMap((c) => rougeTokens(c)));
  let total = 0;
  for (const [i, c] of cands.entries()) {
    const tokens = rougeTokens(c.prose);
    total += tokens.length;
    for (const [j, t] of tokens.entries()) {
      add(count, t);
      if (c.narrator) add(narrated, t);
      if (!first.has(t)) first.set(t, i / Math.max(1, n - 1));
      if (j > 0 && DETERMINERS.has(tokens[j - 1]!)) add(determined, t);
    }
    for (const t of new Set(tokens)) {
      add(sentences, t);
      best.set(t, Math.max(best.get(t) ?? 0, c.score / top));
      if (c.prose.trim().endsWith('?')) add(questions, t);
    }
    for (const m of c.prose.matchAll(/(?<=\s)[A-Z][a-z'’-]+/g))
      for (const t of rougeTokens(m[0])) add(capitals, t);
  }
  const out = new Map<string, number[]>();
  for (const [t, c] of count) {
    const s = sentences.get(t)!;
    out.set(t, [
      1,
      Math.log(1 + c),
      s / n,
      Math.min(1, (capitals.get(t) ?? 0) / c),
      STOP_WORDS.has(t) ? 1 : 0,
      party.has(t) ? 1 : 0,
      Math.log(1 + total),
      (narrated.get(t) ?? 0) / c,
      first.get(t)!,
      Math.min(12, t.length) / 12,
      /^\d+$/.test(t) ? 1 : 0,
      best.get(t)!,
      (questions.get(t) ?? 0) / s,
      Math.log(1 + n),
      (determined.get(t) ?? 0) / c,
      RULES.test(t) ? 1 : 0,
      FILLER.has(t) ? 1 : 0,
    ]);
  }
  return out;
}

const logit = (p: number) => Math.log(Math.max(1e-4, p) / Math.max(1e-4, 1 - p));

/**
 * The features of each pair of adjacent words ("casts fireball"), in the order of
 * SalienceModel.pairs: a constant, the logits of its two words' probabilities, log count,
 * share of sentences, both stop words, how many are, the best score of a sentence holding it,
 * log sentences.
 */
export function pairFeatures(
  cands: readonly SalienceCandidate[],
  wordProbability: ReadonlyMap<string, number>,
): Map<string, number[]> {
  const count = new Map<string, number>();
  const sentences = new Map<string, number>();
  const best = new Map<string, number>();
  const n = cands.length;
  const top = Math.max(...cands.map((c) => c.score)) || 1;
  for (const c of cands) {
    const seen = new Set<string>();
    for (const pair of pairs(rougeTokens(c.prose))) {
      count.set(pair, (count.get(pair) ?? 0) + 1);
      if (seen.has(pair)) continue;
      seen.add(pair);
      sentences.set(pair, (sentences.get(pair) ?? 0) + 1);
      best.set(pair, Math.max(best.get(pair) ?? 0, c.score / top));
    }
  }
  const out = new Map<string, number[]>();
  for (const [pair, c] of count) {
    const [a, b] = pair.split(' ') as [string, string];
    const stops = (STOP_WORDS.has(a) ? 1 : 0) + (STOP_WORDS.has(b) ? 1 : 0);
    out.set(pair, [
      1,
      logit(wordProbability.get(a) ?? 0.01),
      logit(wordProbability.get(b) ?? 0.01),
      Math.log(1 + c),
      sentences.get(pair)! / n,
      stops === 2 ? 1 : 0,
      stops,
      best.get(pair)!,
      Math.log(1 + n),
    ]);
  }
  return out;
}

export function pairs(tokens: readonly string[]): string[] {
  return tokens.slice(1).map((t, i) => `${tokens[i]} ${t}`);
}

function probabilities(features: Map<string, number[]>, weights: readonly number[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, f] of features) {
    let z = 0;
    for (const [j, x] of f.entries()) z += x * (weights[j] ?? 0);
    out.set(k, 1 / (1 + Math.exp(-z)));
  }
  return out;
}

/**
 * The indexes of the candidates to summarise with, in their order: added one at a time while
 * the summary's expected ROUGE-1 plus ROUGE-2 F1 rises (at most `max`).
 */
export function pickSalient(
  cands: readonly SalienceCandidate[],
  characters: readonly string[],
  model: SalienceModel = SALIENCE,
  max = Infinity,
): number[] {
  if (cands.length === 0) return [];
  const words = probabilities(wordFeatures(cands, characters), model.words);
  const bigrams = probabilities(pairFeatures(cands, words), model.pairs);
  const tokens = cands.map((c) => rougeTokens(c.prose));
  const chosen: number[] = [];
  const haveWords = new Set<string>();
  const havePairs = new Set<string>();
  let length = 0;
  let pairLength = 0;
  let matched = 0;
  let matchedPairs = 0;
  let value = 0;
  while (chosen.length < max) {
    let pick = -1;
    let pickValue = value;
    let pickGain = { words: 0, pairs: 0 };
    for (const [i, ts] of tokens.entries()) {
      if (chosen.includes(i) || ts.length === 0) continue;
      let w = 0;
      for (const t of new Set(ts)) if (!haveWords.has(t)) w += words.get(t) ?? 0;
      let p = 0;
      for (const b of new Set(pairs(ts))) if (!havePairs.has(b)) p += bigrams.get(b) ?? 0;
      const f1 = (2 * (matched + w)) / (length + ts.length + REFERENCE_WORDS);
      const f2 = (2 * (matchedPairs + p)) / (pairLength + ts.length - 1 + REFERENCE_WORDS - 1);
      if (f1 + f2 > pickValue) {
        pickValue = f1 + f2;
        pick = i;
        pickGain = { words: w, pairs: p };
      }
    }
    if (pick < 0) break;
    chosen.push(pick);
    const ts = tokens[pick]!;
    for (const t of ts) haveWords.add(t);
    for (const b of pairs(ts)) havePairs.add(b);
    length += ts.length;
    pairLength += Math.max(0, ts.length - 1);
    matched += pickGain.words;
    matchedPairs += pickGain.pairs;
    value = pickValue;
  }
  return chosen.sort((a, b) => a - b);
}

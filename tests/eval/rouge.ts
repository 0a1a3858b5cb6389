// ROUGE-1/2/L F1 through js-rouge, with the tokenisation of Google's rouge-score (lowercase,
// letters and digits only, no stemming), so punctuation marks don't count as matched words.
import { l as rougeLScore, n as rougeNScore } from 'js-rouge';

const tokenizer = (text: string): string[] => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

export interface Rouge {
  r1: number;
  r2: number;
  rl: number;
}

export function rouge(candidate: string, reference: string): Rouge {
  if (!tokenizer(candidate).length || !tokenizer(reference).length) return { r1: 0, r2: 0, rl: 0 };
  return {
    r1: rougeNScore(candidate, reference, { n: 1, tokenizer }),
    r2: rougeNScore(candidate, reference, { n: 2, tokenizer }),
    rl: rougeLScore(candidate, reference, { tokenizer }),
  };
}

export function meanRouge(scores: Rouge[]): Rouge {
  const n = scores.length || 1;
  const sum = (k: keyof Rouge) => (100 * scores.reduce((s, x) => s + x[k], 0)) / n;
  return { r1: sum('r1'), r2: sum('r2'), rl: sum('rl') };
}

/** Recall of the reference's unigrams: how much of one synopsis event a summary contains. */
export function unigramRecall(candidate: string, reference: string): number {
  const ref = tokenizer(reference);
  if (ref.length === 0) return 0;
  const cand = new Map<string, number>();
  for (const t of tokenizer(candidate)) cand.set(t, (cand.get(t) ?? 0) + 1);
  let hit = 0;
  for (const t of ref) {
    const c = cand.get(t) ?? 0;
    if (c > 0) {
      hit += 1;
      cand.set(t, c - 1);
    }
  }
  return hit / ref.length;
}

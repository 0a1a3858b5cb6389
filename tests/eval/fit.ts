// Fits the offline engine's word-importance weights (services/shared/ai/src/offline/salience.ts)
// on CRD3 aligned pairs: a logistic regression of "the reference holds this word" (and "this
// pair of words") on the window's word features, by Newton's method with a small ridge.
import { pickSummary } from '../../services/shared/ai/src/offline/summarize.ts';
import {
  pairFeatures,
  pairs,
  rougeTokens,
  wordFeatures,
  type SalienceCandidate,
  type SalienceModel,
} from '../../services/shared/ai/src/offline/salience.ts';
import type { InferredCharacterLink } from '@chronicler/contracts';
import type { AlignedPair } from './data.ts';

export interface TrainingPair {
  pair: AlignedPair;
  characters: InferredCharacterLink[];
}

/** Weights maximising the penalised likelihood of y given X (the first feature is the constant). */
export function logisticFit(X: number[][], y: number[], ridge = 1): number[] {
  const d = X[0]?.length ?? 0;
  const w = new Array<number>(d).fill(0);
  for (let iteration = 0; iteration < 25; iteration++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const [i, x] of X.entries()) {
      let z = 0;
      for (let j = 0; j < d; j++) z += x[j]! * w[j]!;
      const p = 1 / (1 + Math.exp(-z));
      const v = p * (1 - p);
      for (let j = 0; j < d; j++) {
        g[j]! += (p - y[i]!) * x[j]!;
        for (let k = j; k < d; k++) H[j]![k]! += v * x[j]! * x[k]!;
      }
    }
    for (let j = 0; j < d; j++) {
      g[j]! += ridge * w[j]!;
      H[j]![j]! += ridge;
      for (let k = 0; k < j; k++) H[j]![k] = H[k]![j]!;
    }
    const step = solve(H, g);
    for (let j = 0; j < d; j++) w[j]! -= step[j]!;
    if (Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  return w;
}

/** A linear system by Gauss-Jordan elimination with partial pivoting. */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    const pivot = M[c]![c]! || 1e-12;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r]![c]! / pivot;
      for (let k = c; k <= n; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  return M.map((row, i) => row[n]! / (row[i]! || 1e-12));
}

const sigmoid = (weights: number[]) => (f: number[]) =>
  1 / (1 + Math.exp(-f.reduce((z, x, j) => z + x * weights[j]!, 0)));

/** A window as the fit reads it: its candidates, their word features and the reference's words. */
export interface TrainingWindow {
  candidates: SalienceCandidate[];
  words: Map<string, number[]>;
  reference: string[];
}

/** The windows of these pairs (those with a candidate sentence), read once for every fit they join. */
export function trainingWindows(training: TrainingPair[]): TrainingWindow[] {
  return training.flatMap(({ pair, characters }) => {
    const s = pickSummary(pair.transcript, { characters }).salience;
    if (!s || s.candidates.length === 0) return [];
    return [
      {
        candidates: s.candidates,
        words: wordFeatures(s.candidates, s.characters),
        reference: rougeTokens(pair.reference),
      },
    ];
  });
}

/** The weights that fit these windows: words first, then pairs of words given the words' fit. */
export function fitSalience(windows: TrainingWindow[]): SalienceModel {
  const X: number[][] = [];
  const y: number[] = [];
  for (const w of windows) {
    const inReference = new Set(w.reference);
    for (const [t, f] of w.words) {
      X.push(f);
      y.push(inReference.has(t) ? 1 : 0);
    }
  }
  const words = logisticFit(X, y);
  const p = sigmoid(words);
  const XP: number[][] = [];
  const yP: number[] = [];
  for (const w of windows) {
    const probability = new Map([...w.words].map(([t, f]) => [t, p(f)]));
    const inReference = new Set(pairs(w.reference));
    for (const [b, f] of pairFeatures(w.candidates, probability)) {
      XP.push(f);
      yP.push(inReference.has(b) ? 1 : 0);
    }
  }
  return { words, pairs: logisticFit(XP, yP) };
}

// The live bench's per-phase figures: the latency of the lines still flowing while other
// sessions end, against the steady part of the run before any session ended (#46: "200 live
// sessions ending within the same second do not raise the live p99 of the lines still
// flowing"). A final belongs to the phase its publish falls in.
import { percentile } from './report.ts';

export interface PhaseFigures {
  phase: string;
  finals: number;
  pairs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface EndSpread {
  /** Sessions whose end was published. */
  ended: number;
  /** From the first end to the last (s). */
  spanS: number;
  /** The most ends published within any one second. */
  busiestSecond: number;
}

/** How the sessions' ends were spread: `endsAt` are the moments each end was published. */
export function endSpread(endsAt: number[]): EndSpread {
  const at = [...endsAt].sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0, j = 0; i < at.length; i++) {
    while (at[i]! - at[j]! > 1000) j++;
    busiest = Math.max(busiest, i - j + 1);
  }
  return { ended: at.length, spanS: at.length ? (at.at(-1)! - at[0]!) / 1000 : 0, busiestSecond: busiest };
}

/**
 * Latencies split at the first session's end (of the finals `only` keeps): `steady` (published before any session ended)
 * and `ends` (published from then on, while the sessions end around them).
 */
export function phaseFigures(
  publishedAt: Map<string, number>,
  receipts: { key: string; at: number }[],
  endsAt: number[],
  only: (key: string) => boolean = () => true,
): PhaseFigures[] {
  const firstEnd = Math.min(...endsAt);
  const phaseOf = (from: number) => (from < firstEnd ? 0 : 1);
  const names = ['steady (before any session ends)', 'while the sessions end'];
  const latencies: number[][] = [[], []];
  const finals = [0, 0];
  for (const [k, from] of publishedAt) if (only(k)) finals[phaseOf(from)]!++;
  for (const r of receipts) {
    const from = publishedAt.get(r.key);
    if (from !== undefined && only(r.key)) latencies[phaseOf(from)]!.push(r.at - from);
  }
  return names.map((phase, i) => {
    const xs = latencies[i]!.sort((a, b) => a - b);
    return {
      phase,
      finals: finals[i]!,
      pairs: xs.length,
      p50Ms: percentile(xs, 50),
      p99Ms: percentile(xs, 99),
      maxMs: xs.at(-1) ?? Number.NaN,
    };
  });
}

export interface SteadyWindows {
  /** Finals in each window: as many as the ends' phase had. */
  size: number;
  windows: number;
  medianP99Ms: number;
  p90P99Ms: number;
  maxP99Ms: number;
  /** The share of steady windows whose p99 is below the ends' phase p99 (0.5: a typical window). */
  endsRank: number;
}

/**
 * The ends' phase holds few finals (about one per session), so its p99 is set by its few
 * slowest: against the p99 of the whole steady part it looks worse by sample size alone. Here
 * the steady part is cut into windows of as many consecutive finals (by publish time, a
 * quarter of a window apart), each window's p99 taken the same way, and the ends' p99 ranked
 * among them: like against like.
 */
export function steadyWindows(
  publishedAt: Map<string, number>,
  receipts: { key: string; at: number }[],
  endsAt: number[],
  only: (key: string) => boolean = () => true,
): SteadyWindows {
  const firstEnd = Math.min(...endsAt);
  const byFinal = new Map<string, number[]>();
  for (const r of receipts) {
    const from = publishedAt.get(r.key);
    if (from === undefined) continue;
    const xs = byFinal.get(r.key) ?? [];
    xs.push(r.at - from);
    byFinal.set(r.key, xs);
  }
  const ordered = [...publishedAt].filter(([k]) => only(k)).sort((a, b) => a[1] - b[1]);
  const steady = ordered.filter(([, from]) => from < firstEnd).map(([k]) => byFinal.get(k) ?? []);
  const ends = ordered.filter(([, from]) => from >= firstEnd).map(([k]) => byFinal.get(k) ?? []);
  const p99Of = (finals: number[][]) =>
    percentile(
      finals.flat().sort((a, b) => a - b),
      99,
    );
  const size = Math.max(1, ends.length);
  const step = Math.max(1, Math.floor(size / 4));
  const p99s: number[] = [];
  for (let i = 0; i + size <= steady.length; i += step) p99s.push(p99Of(steady.slice(i, i + size)));
  p99s.sort((a, b) => a - b);
  const endsP99 = p99Of(ends);
  return {
    size,
    windows: p99s.length,
    medianP99Ms: percentile(p99s, 50),
    p90P99Ms: percentile(p99s, 90),
    maxP99Ms: p99s.at(-1) ?? Number.NaN,
    endsRank: p99s.length ? p99s.filter((x) => x < endsP99).length / p99s.length : Number.NaN,
  };
}

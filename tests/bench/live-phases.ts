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
 * Latencies split at the first session's end: `steady` (published before any session ended)
 * and `ends` (published from then on, while the sessions end around them).
 */
export function phaseFigures(
  publishedAt: Map<string, number>,
  receipts: { key: string; at: number }[],
  endsAt: number[],
): PhaseFigures[] {
  const firstEnd = Math.min(...endsAt);
  const phaseOf = (from: number) => (from < firstEnd ? 0 : 1);
  const names = ['steady (before any session ends)', 'while the sessions end'];
  const latencies: number[][] = [[], []];
  const finals = [0, 0];
  for (const from of publishedAt.values()) finals[phaseOf(from)]!++;
  for (const r of receipts) {
    const from = publishedAt.get(r.key);
    if (from !== undefined) latencies[phaseOf(from)]!.push(r.at - from);
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

import { ADMIN_CHART_DAYS } from '@chronicler/contracts';
import type { TimeWindow } from '../db/store.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The chart window: the UTC days from `days - 1` days before `now` up to today, oldest first. */
export function chartDays(now: Date, days = ADMIN_CHART_DAYS): { dates: string[]; window: TimeWindow } {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = today - (days - 1) * DAY_MS;
  const dates = Array.from({ length: days }, (_, i) =>
    new Date(from + i * DAY_MS).toISOString().slice(0, 10),
  );
  return { dates, window: { from: new Date(from), to: new Date(today + DAY_MS) } };
}

/**
 * One entry per date, in the order of `dates`: the row of that date made into an entry, or
 * the entry of a day without one (zeros). Rows for other dates are dropped.
 */
export function everyDay<R extends { date: string }, E>(
  dates: readonly string[],
  rows: readonly R[],
  entry: (date: string, row: R | undefined) => E,
): E[] {
  const byDate = new Map(rows.map((r) => [r.date, r]));
  return dates.map((d) => entry(d, byDate.get(d)));
}

/** USD (or hours) to 4 decimals, as the specification rounds costs; tiny float error first nudged away. */
export const round4 = (value: number): number => Math.round((value + Number.EPSILON) * 10_000) / 10_000;

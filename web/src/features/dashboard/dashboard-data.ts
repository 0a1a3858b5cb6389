import type { TranscriptSummaryItem } from '../../api/types.ts';

/** Stats window (days), recent sessions shown. */
const STATS_WINDOW_DAYS = 30;
export const RECENT_SESSIONS_SHOWN = 5;
const MISSING_VALUE = '--';

function isoDate(date: Date): string {
  const month = String(date.getMonth() + 1).padStart(2, '0');
  const day = String(date.getDate()).padStart(2, '0');
  return `${date.getFullYear()}-${month}-${day}`;
}

/** The last STATS_WINDOW_DAYS days up to today, as YYYY-MM-DD in local time. */
export function statsRange(now: Date = new Date()): { start: string; end: string } {
  const start = new Date(now);
  start.setDate(start.getDate() - STATS_WINDOW_DAYS);
  return { start: isoDate(start), end: isoDate(now) };
}

/** Hours to one decimal, or '--' when absent. */
export function formatHours(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(1) : MISSING_VALUE;
}

/** A count, or '--' when absent. */
export function formatCount(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value)
    ? Math.round(value).toLocaleString('en-US')
    : MISSING_VALUE;
}

function timestampOf(item: TranscriptSummaryItem): number {
  const time = item.session_timestamp ? Date.parse(item.session_timestamp) : NaN;
  return Number.isNaN(time) ? -Infinity : time;
}

/** The newest sessions by session_timestamp (those without one last). */
export function recentSessions(
  transcripts: readonly TranscriptSummaryItem[],
  count: number = RECENT_SESSIONS_SHOWN,
): TranscriptSummaryItem[] {
  return [...transcripts].sort((a, b) => timestampOf(b) - timestampOf(a)).slice(0, count);
}

/** en-US short date ('Nov 22, 2026'), or 'Date N/A'. */
export function formatSessionDate(value: string | null | undefined): string {
  if (!value) return 'Date N/A';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return 'Date N/A';
  return date.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

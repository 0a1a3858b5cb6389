import {
  ADMIN_USER_METRICS_MAX_DAYS,
  type RpcRequest,
  type UserStats,
  type userStatsRpc,
} from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import type { TimeWindow, UsageStore } from '../db/store.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const bad = (message: string): ServiceError => new ServiceError('bad_request', message);

/** Midnight UTC of a YYYY-MM-DD calendar date; null for anything else (2026-02-30 included). */
function dayStart(value: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const d = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value ? d : null;
}

/** [start 00:00 UTC, the day after end 00:00 UTC): both dates are inclusive. */
export function statsWindow(start: string, end: string): TimeWindow {
  const from = dayStart(start);
  if (!from) throw bad('Invalid start date. Use YYYY-MM-DD.');
  const last = dayStart(end);
  if (!last) throw bad('Invalid end date. Use YYYY-MM-DD.');
  if (from > last) throw bad('Start date must be on or before end date.');
  const to = new Date(last.getTime() + DAY_MS);
  if ((to.getTime() - from.getTime()) / DAY_MS > ADMIN_USER_METRICS_MAX_DAYS) {
    throw bad(`Date range cannot exceed ${ADMIN_USER_METRICS_MAX_DAYS} days.`);
  }
  return { from, to };
}

/** svc.admin-stats.user-stats: the owner's transcription hours and AI requests in the window. */
export const userStats =
  (store: UsageStore) =>
  async (req: RpcRequest<typeof userStatsRpc>): Promise<UserStats> => {
    const window = statsWindow(req.start, req.end);
    const [seconds, requests] = await Promise.all([
      store.transcriptionSeconds(req.owner_id, window),
      store.aiRequestCount(req.owner_id, window),
    ]);
    return { transcription_hours: seconds / 3600, ai_requests_total: requests };
  };

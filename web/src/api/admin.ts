// The admin dashboard's calls, admin-only on the server.
import {
  ADMIN_CHART_DAYS,
  ADMIN_RECENT_AI_REQUESTS,
  type AdminAiCostsWeekly,
  type AdminAiRequests,
  type AdminStats,
  type AdminTranscriptionHours,
  type AdminUserMetrics,
} from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { AdminActiveSession, AdminStats, AiRequestRecord } from '@chronicler/contracts';

/** How often the open dashboard refreshes its figures. */
export const ADMIN_REFRESH_MS = 30_000;

export const adminQueryKeys = {
  all: ['admin'] as const,
  stats: ['admin', 'stats'] as const,
  aiRequests: (limit: number) => ['admin', 'ai-requests', limit] as const,
  transcriptionHours: ['admin', 'transcription-hours-per-day'] as const,
  aiCostsWeekly: ['admin', 'ai-costs-weekly'] as const,
  userMetrics: (start: string, end: string) => ['admin', 'user-metrics', start, end] as const,
};

const ERROR = 'Error loading admin dashboard';

export const getAdminStats = (): Promise<AdminStats> =>
  apiRequest<AdminStats>('/admin/stats', { errorMessage: ERROR });

export const getAdminAiRequests = (limit = ADMIN_RECENT_AI_REQUESTS): Promise<AdminAiRequests> =>
  apiRequest<AdminAiRequests>('/admin/ai-requests', { query: { limit }, errorMessage: ERROR });

export const getTranscriptionHoursPerDay = (): Promise<AdminTranscriptionHours> =>
  apiRequest<AdminTranscriptionHours>('/admin/transcription-hours-per-day', { errorMessage: ERROR });

export const getAiCostsWeekly = (): Promise<AdminAiCostsWeekly> =>
  apiRequest<AdminAiCostsWeekly>('/admin/ai-costs-weekly', { errorMessage: ERROR });

export const getUserMetrics = (start: string, end: string): Promise<AdminUserMetrics> =>
  apiRequest<AdminUserMetrics>('/admin/user-metrics', { query: { start, end }, errorMessage: ERROR });

const DAY_MS = 24 * 60 * 60 * 1000;
const ymd = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The user-metrics range the dashboard asks for: the last 7 days, today included (UTC, YYYY-MM-DD). */
export function lastWeekRange(now = Date.now()): { start: string; end: string } {
  return { start: ymd(now - (ADMIN_CHART_DAYS - 1) * DAY_MS), end: ymd(now) };
}

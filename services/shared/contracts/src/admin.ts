import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';

/**
 * The admin dashboard's calls and answers. The gateway serves these
 * under /api/admin/* to admins only; the admin-stats service answers every call from its own
 * ledger (AI requests, transcription usage, live sessions), plus two counts it asks the
 * owners of users and transcripts for.
 */

/** Days in every chart: today (UTC) and the six before it. */
export const ADMIN_CHART_DAYS = 7;
/** How many recent AI requests the dashboard lists; also the default of the call. */
export const ADMIN_RECENT_AI_REQUESTS = 5;
/** Most AI requests one call answers. */
export const ADMIN_AI_REQUESTS_MAX = 100;
/** Most active sessions listed in the stats (the count covers them all). */
export const ADMIN_ACTIVE_SESSIONS_MAX = 100;
/** Most users listed in the user metrics (the busiest first; the totals cover them all). */
export const ADMIN_USER_METRICS_MAX = 100;
/**
 * Longest date range of the user stats and metrics, days (both dates inclusive): a year, leap
 * day included, enough for any yearly view and small enough to stay a cheap query.
 */
export const ADMIN_USER_METRICS_MAX_DAYS = 366;

const DaySchema = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'A UTC day, YYYY-MM-DD' });

/** A live session that has started and not ended, as the admin stats list it. */
export const AdminActiveSessionSchema = Type.Object({
  /** The live session's id: the transcript id it records into (one session per transcript). */
  session_id: Type.String(),
  transcript_id: Type.String(),
  owner_id: Type.String(),
  /** ISO time the recording started. */
  start_time: Type.String(),
  /** Whole seconds since start_time, when the answer was made. */
  duration_seconds: Type.Integer({ minimum: 0 }),
});
export type AdminActiveSession = Static<typeof AdminActiveSessionSchema>;

export const SessionsPerDaySchema = Type.Object({ date: DaySchema, count: Type.Integer({ minimum: 0 }) });
export type SessionsPerDay = Static<typeof SessionsPerDaySchema>;

/** GET /api/admin/stats: the dashboard's totals, active sessions and stream counts. */
export const AdminStatsSchema = Type.Object({
  status: Type.Literal('success'),
  /** Live sessions running now (all of them; `active_sessions` lists at most ADMIN_ACTIVE_SESSIONS_MAX). */
  active_sessions_count: Type.Integer({ minimum: 0 }),
  total_transcripts: Type.Integer({ minimum: 0 }),
  total_users: Type.Integer({ minimum: 0 }),
  /** Live speech-provider streams open now, across every replica. */
  deepgram_ws_count: Type.Integer({ minimum: 0 }),
  assemblyai_ws_count: Type.Integer({ minimum: 0 }),
  /** Sessions (transcripts of any source) created per UTC day: one row per day, oldest first, zeros included. */
  sessions_per_day_last_7: Type.Array(SessionsPerDaySchema, { maxItems: ADMIN_CHART_DAYS }),
  /** The longest-running first. */
  active_sessions: Type.Array(AdminActiveSessionSchema, { maxItems: ADMIN_ACTIVE_SESSIONS_MAX }),
});
export type AdminStats = Static<typeof AdminStatsSchema>;

/** One AI request as the dashboard lists it. */
export const AiRequestRecordSchema = Type.Object({
  _id: Type.String(),
  user_id: Type.String(),
  /** From the auth service; null when the user is gone or auth did not answer. */
  username: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  request_type: Type.String(),
  model: Type.String(),
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  /** USD, rounded to 4 decimals with the prices configured when the request was made. */
  estimated_cost_usd: Type.Number({ minimum: 0 }),
  success: Type.Boolean(),
  processing_time_ms: Type.Integer({ minimum: 0 }),
  created_at: Type.String(),
});
export type AiRequestRecord = Static<typeof AiRequestRecordSchema>;

/** GET /api/admin/ai-requests?limit: the newest first. */
export const AdminAiRequestsQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: ADMIN_AI_REQUESTS_MAX, default: ADMIN_RECENT_AI_REQUESTS }),
    ),
  },
  { additionalProperties: false },
);
export type AdminAiRequestsQuery = Static<typeof AdminAiRequestsQuerySchema>;

export const AdminAiRequestsSchema = Type.Object({
  status: Type.Literal('success'),
  ai_requests: Type.Array(AiRequestRecordSchema, { maxItems: ADMIN_AI_REQUESTS_MAX }),
});
export type AdminAiRequests = Static<typeof AdminAiRequestsSchema>;

/** Hours transcribed on one UTC day, rounded to 4 decimals. */
export const TranscriptionHoursDaySchema = Type.Object({
  date: DaySchema,
  transcription_hours: Type.Number({ minimum: 0 }),
  /**
   * Added to the spec's fields: hours live speech streams were open, every speaker's own
   * (what streaming providers bill), rounded to 4 decimals, and how many speakers they were.
   */
  stream_hours: Type.Number({ minimum: 0 }),
  stream_speakers: Type.Integer({ minimum: 0 }),
});
export type TranscriptionHoursDay = Static<typeof TranscriptionHoursDaySchema>;

/** GET /api/admin/transcription-hours-per-day: the last 7 UTC days, oldest first, zeros included. */
export const AdminTranscriptionHoursSchema = Type.Object({
  status: Type.Literal('success'),
  transcription_hours_per_day: Type.Array(TranscriptionHoursDaySchema, { maxItems: ADMIN_CHART_DAYS }),
});
export type AdminTranscriptionHours = Static<typeof AdminTranscriptionHoursSchema>;

/**
 * One day of AI use in the weekly cost chart, with its cost worked out from the tokens and
 * the configured prices (0.1 / 0.4 USD per million by default), rounded to 4 decimals.
 */
export const WeeklyAiCostDaySchema = Type.Object({
  date: DaySchema,
  total_input_tokens: Type.Integer({ minimum: 0 }),
  total_output_tokens: Type.Integer({ minimum: 0 }),
  total_cost_usd: Type.Number({ minimum: 0 }),
});
export type WeeklyAiCostDay = Static<typeof WeeklyAiCostDaySchema>;

/** GET /api/admin/ai-costs-weekly: the last 7 UTC days, oldest first, zeros included. */
export const AdminAiCostsWeeklySchema = Type.Object({
  status: Type.Literal('success'),
  days: Type.Array(WeeklyAiCostDaySchema, { maxItems: ADMIN_CHART_DAYS }),
});
export type AdminAiCostsWeekly = Static<typeof AdminAiCostsWeeklySchema>;

/** GET /api/admin/user-metrics?start&end (YYYY-MM-DD, both inclusive, UTC). */
export const AdminUserMetricsQuerySchema = Type.Object(
  {
    start: Type.String({ maxLength: 10 }),
    end: Type.String({ maxLength: 10 }),
  },
  { additionalProperties: false },
);
export type AdminUserMetricsQuery = Static<typeof AdminUserMetricsQuerySchema>;

export const UserMetricSchema = Type.Object({
  user_id: Type.String(),
  ai_requests: Type.Integer({ minimum: 0 }),
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  estimated_cost_usd: Type.Number({ minimum: 0 }),
  transcription_hours: Type.Number({ minimum: 0 }),
});
export type UserMetric = Static<typeof UserMetricSchema>;

/** Usage per user in the range: the totals over everyone, and the busiest users. */
export const AdminUserMetricsSchema = Type.Object({
  status: Type.Literal('success'),
  start: DaySchema,
  end: DaySchema,
  /** Users with any AI request or transcription in the range. */
  active_users: Type.Integer({ minimum: 0 }),
  ai_requests: Type.Integer({ minimum: 0 }),
  transcription_hours: Type.Number({ minimum: 0 }),
  estimated_cost_usd: Type.Number({ minimum: 0 }),
  /** Most AI requests first, then most hours; at most ADMIN_USER_METRICS_MAX. */
  users: Type.Array(UserMetricSchema, { maxItems: ADMIN_USER_METRICS_MAX }),
});
export type AdminUserMetrics = Static<typeof AdminUserMetricsSchema>;

// --- RPCs: svc.admin-stats.* -----------------------------------------------------------

export const adminStatsRpc = rpc('admin-stats', 'stats', Type.Object({}), AdminStatsSchema);

export const adminAiRequestsRpc = rpc(
  'admin-stats',
  'ai-requests',
  Type.Object({ limit: Type.Integer({ minimum: 1, maximum: ADMIN_AI_REQUESTS_MAX }) }),
  AdminAiRequestsSchema,
);

export const adminTranscriptionHoursRpc = rpc(
  'admin-stats',
  'transcription-hours-per-day',
  Type.Object({}),
  AdminTranscriptionHoursSchema,
);

export const adminAiCostsWeeklyRpc = rpc(
  'admin-stats',
  'ai-costs-weekly',
  Type.Object({}),
  AdminAiCostsWeeklySchema,
);

/** Bad dates are `bad_request` with a message for the user (as svc.admin-stats.user-stats). */
export const adminUserMetricsRpc = rpc(
  'admin-stats',
  'user-metrics',
  Type.Object({ start: Type.String({ maxLength: 10 }), end: Type.String({ maxLength: 10 }) }),
  AdminUserMetricsSchema,
);

// --- What admin-stats asks the owners of the data for ---------------------------------

/** Most days of created-per-day counts one transcript-counts call answers. */
export const TRANSCRIPT_COUNTS_MAX_DAYS = 31;

/**
 * svc.transcript.admin-counts: every transcript (any owner, any source) and those created per
 * UTC day from `since_day` (YYYY-MM-DD, at most TRANSCRIPT_COUNTS_MAX_DAYS back) on; days
 * without one are left out. Two aggregates: one number and at most 31 rows.
 */
export const transcriptAdminCountsRpc = rpc(
  'transcript',
  'admin-counts',
  Type.Object({ since_day: DaySchema }),
  Type.Object({
    total: Type.Integer({ minimum: 0 }),
    created_per_day: Type.Array(SessionsPerDaySchema, { maxItems: TRANSCRIPT_COUNTS_MAX_DAYS + 1 }),
  }),
);

import { ADMIN_ACTIVE_SESSIONS_MAX, type AdminStats } from '@chronicler/contracts';
import type { UsageStore } from '../db/store.ts';
import { chartDays, everyDay } from './days.ts';

/** What the stats need from outside this service's tables: counts kept by their owners. */
export interface StatsSources {
  /** svc.transcript.admin-counts: all transcripts, and those created per UTC day since `sinceDay`. */
  transcripts(
    sinceDay: string,
  ): Promise<{ total: number; created_per_day: { date: string; count: number }[] }>;
  /** svc.auth.count-users. */
  users(): Promise<number>;
  /** The speech stream gate's counts: live provider streams open now, across every replica. */
  streams(): Promise<{ deepgram: number; assemblyai: number }>;
}

/**
 * svc.admin-stats.stats: the admin dashboard's stats. Active sessions come from this
 * service's live_sessions (fed by the live events), the totals from their owners (one
 * aggregate each), the stream counts from the shared gate.
 */
export const adminStats =
  (store: UsageStore, sources: StatsSources, now: () => Date = () => new Date()) =>
  async (): Promise<AdminStats> => {
    const at = now();
    const { dates } = chartDays(at);
    const [active, transcripts, users, streams] = await Promise.all([
      store.activeSessions(ADMIN_ACTIVE_SESSIONS_MAX),
      sources.transcripts(dates[0]!),
      sources.users(),
      sources.streams(),
    ]);
    return {
      status: 'success',
      active_sessions_count: active.count,
      total_transcripts: transcripts.total,
      total_users: users,
      deepgram_ws_count: streams.deepgram,
      assemblyai_ws_count: streams.assemblyai,
      sessions_per_day_last_7: everyDay(dates, transcripts.created_per_day, (date, r) => ({
        date,
        count: r?.count ?? 0,
      })),
      active_sessions: active.rows.map((s) => ({
        session_id: s.transcript_id,
        transcript_id: s.transcript_id,
        owner_id: s.owner_id,
        start_time: s.started_at,
        duration_seconds: Math.max(0, Math.floor((at.getTime() - Date.parse(s.started_at)) / 1000)),
      })),
    };
  };

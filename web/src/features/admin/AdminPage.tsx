import { ADMIN_RECENT_AI_REQUESTS } from '@chronicler/contracts';
import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Navigate } from 'react-router-dom';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import {
  ADMIN_REFRESH_MS,
  adminQueryKeys,
  getAdminAiRequests,
  getAdminStats,
  getAiCostsWeekly,
  getTranscriptionHoursPerDay,
  getUserMetrics,
  lastWeekRange,
} from '../../api/admin.ts';
import { isApiError } from '../../api/http.ts';
import { Spinner } from '../../components/Spinner.tsx';
import './admin.css';
import { AudioUsageCard } from '../audio/AudioStorageCard.tsx';
import { ActiveSessionsTable, AiRequestsTable, ChartCard, Empty, StatCard, usd } from './AdminCards.tsx';

const DEEPGRAM_DASHBOARD_URL = 'https://console.deepgram.com/';
const ASSEMBLYAI_DASHBOARD_URL = 'https://www.assemblyai.com/app';

/** 401 or 403: the server does not take this user as an admin; the page sends them to /. */
const isUnauthorized = (error: unknown): boolean =>
  isApiError(error) &&
  (error.status === 'unauthorized' || error.httpStatus === 401 || error.httpStatus === 403);

/** Refused or missing requests will not get better by asking again. */
const retry = (count: number, error: Error): boolean =>
  count < 2 && !(isApiError(error) && error.httpStatus !== undefined && error.httpStatus < 500);

const queryOptions = { refetchInterval: ADMIN_REFRESH_MS, staleTime: 0, retry } as const;

/** '2026-03-07' -> '03-07' for the chart axes. */
const shortDay = (date: string): string => date.slice(5);
const allZero = <T,>(rows: readonly T[], value: (row: T) => number): boolean =>
  rows.every((r) => value(r) === 0);

/**
 * Cost axis ticks in whole thousandths of a dollar (the axis shows 3 decimals), at most five,
 * the top one at or above the highest day: small costs get [0, 0.001] rather than five
 * ticks that all read 0.000.
 */
function costTicks(maxCost: number): number[] {
  const thousandths = Math.max(1, Math.ceil(Math.round(maxCost * 1e6) / 1000));
  const step = Math.ceil(thousandths / 4);
  const ticks: number[] = [];
  for (let t = 0; t < thousandths + step; t += step) ticks.push(t / 1000);
  return ticks;
}

const CHART_HEIGHT = 240;
const axisTick = { fontSize: 12 };

/** /admin, reached only by admins (see RequireAdmin); the server checks every call too. */
export function AdminPage() {
  const [range] = useState(() => lastWeekRange());
  const stats = useQuery({ queryKey: adminQueryKeys.stats, queryFn: getAdminStats, ...queryOptions });
  const aiRequests = useQuery({
    queryKey: adminQueryKeys.aiRequests(ADMIN_RECENT_AI_REQUESTS),
    queryFn: () => getAdminAiRequests(ADMIN_RECENT_AI_REQUESTS),
    ...queryOptions,
  });
  const hours = useQuery({
    queryKey: adminQueryKeys.transcriptionHours,
    queryFn: getTranscriptionHoursPerDay,
    ...queryOptions,
  });
  const costs = useQuery({
    queryKey: adminQueryKeys.aiCostsWeekly,
    queryFn: getAiCostsWeekly,
    ...queryOptions,
  });
  // The user metrics are fetched with the rest of the dashboard and kept in the cache;
  // this page shows none of them.
  const metrics = useQuery({
    queryKey: adminQueryKeys.userMetrics(range.start, range.end),
    queryFn: () => getUserMetrics(range.start, range.end),
    ...queryOptions,
  });

  const all: UseQueryResult[] = [stats, aiRequests, hours, costs, metrics];
  if (all.some((q) => isUnauthorized(q.error))) return <Navigate to="/" replace />;

  let body: ReactNode;
  if (!stats.data || !aiRequests.data || !hours.data || !costs.data) {
    // A failed refresh keeps the figures it had; only a dashboard without them is an error.
    body = all.some((q) => q.isError && !q.data) ? (
      <p className="admin-error" role="alert">
        Error loading admin dashboard
      </p>
    ) : (
      <Spinner label="Loading Admin Dashboard..." size="large" />
    );
  } else {
    const s = stats.data;
    const costDays = costs.data.days;
    const sessionDays = s.sessions_per_day_last_7;
    const hourDays = hours.data.transcription_hours_per_day;
    const ticks = costTicks(Math.max(0, ...costDays.map((d) => d.total_cost_usd)));
    body = (
      <>
        <div className="stat-grid">
          <StatCard label="Active Sessions" value={s.active_sessions_count} />
          <StatCard label="Total Transcripts" value={s.total_transcripts} />
          <StatCard label="Total Users" value={s.total_users} />
        </div>
        <div className="stat-grid">
          <StatCard label="Deepgram WebSockets" value={s.deepgram_ws_count}>
            <a
              className="admin-provider-link"
              href={DEEPGRAM_DASHBOARD_URL}
              target="_blank"
              rel="noopener noreferrer"
            >
              Deepgram dashboard
            </a>
          </StatCard>
          <StatCard label="AssemblyAI WebSockets" value={s.assemblyai_ws_count}>
            <a
              className="admin-provider-link"
              href={ASSEMBLYAI_DASHBOARD_URL}
              target="_blank"
              rel="noopener noreferrer"
            >
              AssemblyAI dashboard
            </a>
          </StatCard>
        </div>

        <div className="admin-charts">
          <ChartCard title="AI Cost (Past 7 Days)">
            {costDays.length === 0 || allZero(costDays, (d) => d.total_cost_usd) ? (
              <Empty text="No data available." />
            ) : (
              <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
                <BarChart data={costDays} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" vertical={false} />
                  <XAxis dataKey="date" tickFormatter={shortDay} tick={axisTick} />
                  <YAxis
                    tickFormatter={(v: number) => v.toFixed(3)}
                    tick={axisTick}
                    width={56}
                    ticks={ticks}
                    domain={[0, ticks.at(-1)!]}
                  />
                  <Tooltip formatter={(v) => [usd(Number(v)), 'Cost']} />
                  <Bar
                    dataKey="total_cost_usd"
                    name="Cost"
                    fill="#2e3d8a"
                    radius={[4, 4, 0, 0]}
                    isAnimationActive={false}
                  />
                </BarChart>
              </ResponsiveContainer>
            )}
          </ChartCard>
          <ChartCard title="Sessions in Last 7 Days">
            {sessionDays.length === 0 || allZero(sessionDays, (d) => d.count) ? (
              <Empty text="No data available." />
            ) : (
              <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
                <LineChart data={sessionDays} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" vertical={false} />
                  <XAxis dataKey="date" tickFormatter={shortDay} tick={axisTick} />
                  <YAxis allowDecimals={false} tick={axisTick} width={40} />
                  <Tooltip />
                  <Line
                    type="monotone"
                    dataKey="count"
                    name="Sessions"
                    stroke="#15803d"
                    strokeWidth={2}
                    isAnimationActive={false}
                  />
                </LineChart>
              </ResponsiveContainer>
            )}
          </ChartCard>
          <ChartCard
            title="Transcription Hours per Day (Past Week)"
            note="Hours: the audio transcribed (a live session counts once). Speech stream hours (billed per speaker): every speaker's own provider stream, as streaming providers bill."
          >
            {hourDays.length === 0 || allZero(hourDays, (d) => d.transcription_hours + d.stream_hours) ? (
              <Empty text="No transcription data available." />
            ) : (
              <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
                <LineChart data={hourDays} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
                  <CartesianGrid strokeDasharray="3 3" vertical={false} />
                  <XAxis dataKey="date" tickFormatter={shortDay} tick={axisTick} />
                  <YAxis tick={axisTick} width={48} />
                  <Tooltip formatter={(v, name) => [Number(v).toFixed(2), name]} />
                  <Legend />
                  <Line
                    type="monotone"
                    dataKey="transcription_hours"
                    name="Hours"
                    stroke="#b45309"
                    strokeWidth={2}
                    isAnimationActive={false}
                  />
                  <Line
                    type="monotone"
                    dataKey="stream_hours"
                    name="Speech stream hours (billed per speaker)"
                    stroke="#6d28d9"
                    strokeWidth={2}
                    isAnimationActive={false}
                  />
                </LineChart>
              </ResponsiveContainer>
            )}
          </ChartCard>
        </div>

        <section className="card" aria-labelledby="admin-ai-requests-title">
          <h2 id="admin-ai-requests-title" className="card-title">
            Recent AI Requests
          </h2>
          <AiRequestsTable requests={aiRequests.data.ai_requests} />
        </section>
        <section className="card" aria-labelledby="admin-active-sessions-title">
          <h2 id="admin-active-sessions-title" className="card-title">
            Active Session Details
          </h2>
          <ActiveSessionsTable sessions={s.active_sessions} />
        </section>
        <AudioUsageCard />
      </>
    );
  }

  return (
    <div className="page admin-page">
      <header className="page-header">
        <h1 className="page-title">Admin Dashboard</h1>
      </header>
      {body}
    </div>
  );
}

// The admin dashboard's building blocks: its cards and its two tables.
import type { ReactNode } from 'react';
import type { AdminActiveSession, AiRequestRecord } from '../../api/admin.ts';

const cut = (id: string, n: number): string => (id.length > n ? `${id.slice(0, n)}...` : id);
export const usd = (value: number, decimals = 4): string => `$${value.toFixed(decimals)}`;

export function ChartCard({ title, note, children }: { title: string; note?: string; children: ReactNode }) {
  return (
    <section className="card admin-chart" aria-label={title}>
      <h2 className="card-title">{title}</h2>
      {note ? <p className="muted">{note}</p> : null}
      {children}
    </section>
  );
}

export function Empty({ text }: { text: string }) {
  return <p className="muted admin-empty">{text}</p>;
}

export function StatCard({ label, value, children }: { label: string; value: number; children?: ReactNode }) {
  return (
    <div className="card stat-card">
      <h2 className="stat-label">{label}</h2>
      <p className="stat-value">{value.toLocaleString()}</p>
      {children}
    </div>
  );
}

export function AiRequestsTable({ requests }: { requests: AiRequestRecord[] }) {
  if (requests.length === 0) return <Empty text="No AI requests found." />;
  return (
    <div className="admin-table-wrap" tabIndex={0} aria-label="Recent AI Requests">
      <table className="admin-table">
        <thead>
          <tr>
            <th scope="col">User</th>
            <th scope="col">Type</th>
            <th scope="col">Model</th>
            <th scope="col">Input Tokens</th>
            <th scope="col">Output Tokens</th>
            <th scope="col">Cost</th>
            <th scope="col">Status</th>
            <th scope="col">Time (ms)</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {requests.map((r) => (
            <tr key={r._id}>
              <td title={r.user_id}>
                <code>{r.user_id.slice(0, 8)}</code>
                {r.username ? <span className="admin-username">{r.username}</span> : null}
              </td>
              <td>{r.request_type}</td>
              <td>{r.model}</td>
              <td className="num">{r.input_tokens.toLocaleString()}</td>
              <td className="num">{r.output_tokens.toLocaleString()}</td>
              <td className="num">{usd(r.estimated_cost_usd)}</td>
              <td>
                <span className={r.success ? 'admin-status ok' : 'admin-status failed'}>
                  {r.success ? 'Success' : 'Failed'}
                </span>
              </td>
              <td className="num">{r.processing_time_ms.toLocaleString()}</td>
              <td>{new Date(r.created_at).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ActiveSessionsTable({ sessions }: { sessions: AdminActiveSession[] }) {
  if (sessions.length === 0) return <Empty text="No active sessions at the moment." />;
  return (
    <div className="admin-table-wrap" tabIndex={0} aria-label="Active Session Details">
      <table className="admin-table">
        <thead>
          <tr>
            <th scope="col">Session ID</th>
            <th scope="col">Transcript ID</th>
            <th scope="col">Owner ID</th>
            <th scope="col">Start Time</th>
            <th scope="col">Duration (s)</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.session_id}>
              <td title={s.session_id}>
                <code>{cut(s.session_id, 12)}</code>
              </td>
              <td title={s.transcript_id}>
                <code>{cut(s.transcript_id, 12)}</code>
              </td>
              <td title={s.owner_id}>
                <code>{cut(s.owner_id, 12)}</code>
              </td>
              <td>{new Date(s.start_time).toLocaleString()}</td>
              <td className="num">{s.duration_seconds.toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

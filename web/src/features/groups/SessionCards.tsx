import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import type { TranscriptSummaryItem } from '../../api/types.ts';
import { formatSessionDate } from '../dashboard/dashboard-data.ts';
import { SessionBadges } from './SessionBadges.tsx';
import { isActive, summaryPreview } from './session-data.ts';

function sessionSummaryText(session: TranscriptSummaryItem): { text: string; empty: boolean } {
  if (isActive(session))
    return { text: 'Summary is not available while the session is in progress.', empty: true };
  const summary = session.summary?.trim();
  if (summary) return { text: summaryPreview(summary), empty: false };
  if (session.summary_status === 'generating') return { text: 'Generating summary...', empty: true };
  if (session.summary_status === 'failed') return { text: 'Error generating summary', empty: true };
  return { text: 'No summary available', empty: true };
}

function SessionCard({ session }: { session: TranscriptSummaryItem }) {
  const navigate = useNavigate();
  const open = () => void navigate(`/sessions/${session.id}`);
  const summary = sessionSummaryText(session);
  const error = session.transcription_status === 'failed' ? session.transcription_error?.trim() : '';
  return (
    <li className="card session-card">
      <h3 className="session-card-title">
        <button type="button" className="session-card-name" onClick={open}>
          {session.name}
        </button>
      </h3>
      <div className="session-card-meta">
        <SessionBadges session={session} showEnded />
        <span className="muted small">{formatSessionDate(session.session_timestamp)}</span>
      </div>
      {error ? <p className="session-card-error">{error}</p> : null}
      <p className={summary.empty ? 'session-card-summary is-empty' : 'session-card-summary'}>
        {summary.text}
      </p>
      <button type="button" className="button button-secondary session-card-open" onClick={open}>
        View Transcript
      </button>
    </li>
  );
}

/**
 * The group's loaded sessions as cards, or a line saying there are none. When more are
 * stored, reaching the end of the cards (or the button there) asks for the next page.
 */
export function SessionCards({
  sessions,
  hasMore = false,
  loadingMore = false,
  onLoadMore,
}: {
  sessions: TranscriptSummaryItem[];
  hasMore?: boolean;
  loadingMore?: boolean;
  onLoadMore?: () => void;
}) {
  const endRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const end = endRef.current;
    if (!end || !hasMore || loadingMore || !onLoadMore) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) onLoadMore();
    });
    observer.observe(end);
    return () => observer.disconnect();
  }, [hasMore, loadingMore, onLoadMore]);
  return (
    <section aria-labelledby="group-sessions-title">
      <h2 id="group-sessions-title" className="group-sessions-title">
        Sessions
      </h2>
      {sessions.length === 0 ? (
        <p className="card muted group-empty">No sessions in this group yet</p>
      ) : (
        <ul className="session-grid">
          {sessions.map((session) => (
            <SessionCard key={session.id} session={session} />
          ))}
        </ul>
      )}
      {hasMore && onLoadMore ? (
        <div ref={endRef} className="session-cards-more">
          <button
            type="button"
            className="button button-secondary"
            onClick={onLoadMore}
            disabled={loadingMore}
          >
            {loadingMore ? 'Loading more sessions...' : 'Load more sessions'}
          </button>
        </div>
      ) : null}
    </section>
  );
}

import { useQuery } from '@tanstack/react-query';
import { useMemo, type ReactNode } from 'react';
import { Link, useParams } from 'react-router-dom';
import { errorDetail, isApiError } from '../../api/http.ts';
import { getShared, getSharedSession, type SharedTranscript } from '../../api/shares.ts';
import { Markdown } from '../../components/Markdown.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { formatSessionDate } from '../dashboard/dashboard-data.ts';
import { useMoment } from '../search/moment.ts';
import { TranscriptLines } from '../transcripts/TranscriptLines.tsx';
import { linesFromContent } from '../transcripts/transcript-view.ts';
import { SharedStory } from './SharedStory.tsx';
import '../transcripts/transcript-viewer.css';
import './shares.css';

/**
 * A shared session, read-only: its summary and transcript. `actions` is where what a reader
 * may take away (an export) goes, beside the title.
 */
function SharedSession({ session, actions }: { session: SharedTranscript; actions?: ReactNode }) {
  const lines = useMemo(() => linesFromContent(session.content), [session.content]);
  const moment = useMoment();
  return (
    <>
      <header className="card shared-header">
        <h1 className="page-title">{session.name}</h1>
        <p className="muted">{formatSessionDate(session.session_timestamp)}</p>
        {actions ? <div className="button-row">{actions}</div> : null}
      </header>
      <section className="card" aria-labelledby="shared-summary-title">
        <h2 id="shared-summary-title" className="card-title">
          Summary
        </h2>
        {session.summary.trim() ? (
          <Markdown text={session.summary} reader />
        ) : (
          <p className="muted">No summary available</p>
        )}
      </section>
      <section className="card viewer-transcript" aria-labelledby="shared-transcript-title">
        <h2 id="shared-transcript-title" className="card-title">
          Transcript
        </h2>
        {lines.length ? (
          <TranscriptLines lines={lines} moment={moment} />
        ) : (
          <p className="muted">No transcript yet.</p>
        )}
      </section>
    </>
  );
}

const GONE =
  'This link does not work: it may have been revoked or have expired. Ask whoever shared it for a new one.';

/** Why a link shows nothing, in a reader's words: a link that is gone (404) says so plainly. */
function Failure({ error }: { error: unknown }) {
  const gone = isApiError(error) && error.httpStatus === 404;
  return (
    <section className="card" role="alert">
      <h1 className="page-title">Link not available</h1>
      <p>{gone ? GONE : errorDetail(error, GONE)}</p>
    </section>
  );
}

/** /shared/{token}/sessions/{id}: one session of a shared campaign. */
function SharedCampaignSession({ token, sessionId }: { token: string; sessionId: string }) {
  const session = useQuery({
    queryKey: ['shared', token, 'session', sessionId],
    queryFn: () => getSharedSession(token, sessionId),
    retry: false,
  });
  if (session.isPending) return <Spinner label="Loading session..." />;
  if (session.isError) return <Failure error={session.error} />;
  return (
    <>
      <p>
        <Link to={`/shared/${token}`}>← Back to the campaign</Link>
      </p>
      <SharedSession session={session.data} />
    </>
  );
}

/**
 * /shared/{token} (and /shared/{token}/sessions/{id}): what a game master shared, for anyone
 * holding the link, signed in or not. Nothing here writes.
 */
export function SharedPage() {
  const { token = '', sessionId } = useParams();
  const view = useQuery({ queryKey: ['shared', token], queryFn: () => getShared(token), retry: false });
  let body: ReactNode;
  if (sessionId) body = <SharedCampaignSession token={token} sessionId={sessionId} />;
  else if (view.isPending) body = <Spinner label="Loading shared link..." />;
  else if (view.isError) body = <Failure error={view.error} />;
  else if (view.data.kind === 'transcript') body = <SharedSession session={view.data.transcript} />;
  else if (view.data.kind === 'character-recap' || view.data.kind === 'previously') {
    const story = view.data;
    body = (
      <SharedStory
        title={story.kind === 'previously' ? 'Previously on…' : `${story.character}'s story`}
        campaign={story.group.name}
        text={story.text}
        entries={story.entries}
      />
    );
  } else {
    const { group, sessions } = view.data;
    body = (
      <>
        <header className="card shared-header">
          <h1 className="page-title">{group.name}</h1>
          <p className="muted">{sessions.length === 1 ? '1 session' : `${sessions.length} sessions`}</p>
        </header>
        <section className="card" aria-labelledby="shared-campaign-summary">
          <h2 id="shared-campaign-summary" className="card-title">
            Campaign Summary
          </h2>
          {group.summary.trim() ? (
            <Markdown text={group.summary} reader />
          ) : (
            <p className="muted">No summary available</p>
          )}
        </section>
        <ul className="shared-sessions">
          {sessions.map((s) => (
            <li key={s.id} className="card">
              <h2 className="card-title">
                <Link to={`/shared/${token}/sessions/${s.id}`}>{s.name}</Link>
              </h2>
              <p className="muted small">{formatSessionDate(s.session_timestamp)}</p>
              {s.summary.trim() ? <Markdown text={s.summary} reader /> : null}
            </li>
          ))}
        </ul>
      </>
    );
  }
  return (
    <main className="shared-page">
      <div className="shared-banner">
        <span>Chronicler · shared with you, read-only</span>
        {view.data?.expires_at ? (
          <span>Link expires {new Date(view.data.expires_at).toLocaleString('en-US')}</span>
        ) : null}
      </div>
      {body}
    </main>
  );
}

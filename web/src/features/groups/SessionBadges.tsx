import type { TranscriptSummaryItem } from '../../api/types.ts';
import { isActive } from './session-data.ts';
import './session-badges.css';

/**
 * What a session's state is, wherever a session appears: live recording, and for an
 * uploaded recording, whether its transcription is still running or failed (with why).
 */
export function SessionBadges({
  session,
  showEnded = false,
}: {
  session: TranscriptSummaryItem;
  /** Also badge an ended session (the group dashboard's status badge). */
  showEnded?: boolean;
}) {
  const transcription = session.transcription_status;
  const failed = transcription === 'failed';
  const error = session.transcription_error?.trim();
  return (
    <span className="session-badges">
      {isActive(session) ? (
        <span className="session-badge is-live">Live</span>
      ) : showEnded ? (
        <span className="session-badge is-ended">Ended</span>
      ) : null}
      {transcription === 'queued' || transcription === 'processing' ? (
        <span className="session-badge is-working">Transcribing...</span>
      ) : null}
      {failed ? (
        <span className="session-badge is-failed" title={error || undefined}>
          Transcription failed
          {error ? <span className="visually-hidden">: {error}</span> : null}
        </span>
      ) : null}
    </span>
  );
}

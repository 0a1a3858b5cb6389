import { useMemo } from 'react';
import { useLiveTranscript } from '../../realtime/live-socket.ts';
import { interimLines, liveFinalLines } from '../transcripts/transcript-view.ts';

/** The lines the page shows: the latest; the session page has all of them. */
const SHOWN = 30;

/**
 * The lines of a recording transcribed live, as they are spoken: the session's live socket
 * (the one the session page watches), so a reload shows the lines said so far and then the
 * new ones. Newest last, as said; those still being spoken marked so.
 */
export function RecordLiveLines({ sessionId }: { sessionId: string }) {
  const live = useLiveTranscript(sessionId, true);
  const lines = useMemo(() => {
    const finals = liveFinalLines(live, '');
    return [...finals.slice(-SHOWN), ...interimLines(live)];
  }, [live]);
  return (
    <section className="card record-lines" aria-label="Live transcript">
      <h2 className="section-title">Live transcript</h2>
      {lines.length === 0 ? (
        <p className="field-hint">
          {live.status === 'live'
            ? 'Lines appear here as they are spoken.'
            : 'Connecting to the live transcript...'}
        </p>
      ) : (
        <ol className="record-line-list" aria-live="polite">
          {lines.map((line) => (
            <li key={line.key} className={line.interim ? 'record-line is-interim' : 'record-line'}>
              {line.time !== null ? <span className="record-line-time">[{line.time}]</span> : null}{' '}
              {line.speaker ? <span className="record-line-speaker">{line.speaker}:</span> : null}{' '}
              <span className="record-line-text">{line.text}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

import { useEffect, useMemo, useState } from 'react';
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
  // The socket gives up after its few reconnect attempts (a network lost for longer): while
  // recording, the page opens it again when the network is back, and retries every few seconds.
  const [generation, setGeneration] = useState(0);
  const [gaveUp, setGaveUp] = useState(false);
  useEffect(() => {
    const again = () => setGeneration((g) => g + 1);
    window.addEventListener('online', again);
    const timer = gaveUp ? window.setTimeout(again, 5000) : undefined;
    return () => {
      window.removeEventListener('online', again);
      window.clearTimeout(timer);
    };
  }, [gaveUp]);
  return <LiveLines key={generation} sessionId={sessionId} onOffline={setGaveUp} />;
}

function LiveLines({ sessionId, onOffline }: { sessionId: string; onOffline: (offline: boolean) => void }) {
  const live = useLiveTranscript(sessionId, true);
  const offline = live.status === 'offline';
  useEffect(() => onOffline(offline), [offline, onOffline]);
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

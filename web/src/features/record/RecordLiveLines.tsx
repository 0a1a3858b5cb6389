import { useMemo } from 'react';
import { useLiveTranscript } from '../../realtime/live-socket.ts';
import { TranscriptLines } from '../transcripts/TranscriptLines.tsx';
import { interimLines, liveFinalLines } from '../transcripts/transcript-view.ts';

/**
 * The lines of a recording transcribed live, as they are spoken: the session's live socket
 * (the one the session page watches), so a reload shows every line said so far and then the
 * new ones.
 */
export function RecordLiveLines({ sessionId }: { sessionId: string }) {
  const live = useLiveTranscript(sessionId, true);
  const lines = useMemo(() => liveFinalLines(live, ''), [live]);
  const interims = useMemo(() => interimLines(live), [live]);
  return (
    <section className="card record-lines" aria-label="Live transcript">
      <h2 className="section-title">Live transcript</h2>
      {lines.length === 0 && interims.length === 0 ? (
        <p className="field-hint">
          {live.status === 'live'
            ? 'Lines appear here as they are spoken.'
            : 'Connecting to the live transcript...'}
        </p>
      ) : (
        <TranscriptLines lines={lines} interims={interims} live jumpLabel="Jump to live" />
      )}
    </section>
  );
}

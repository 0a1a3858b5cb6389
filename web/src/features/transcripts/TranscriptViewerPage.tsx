import type { PrepUpdate } from '@chronicler/contracts';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { isApiError } from '../../api/http.ts';
import { getTranscript, syncSessionInCaches } from '../../api/transcripts.ts';
import type { TranscriptDetail } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { ChatDrawer } from '../chat/ChatDrawer.tsx';
import { NotesDrawer } from '../notes/NotesDrawer.tsx';
import { SessionHeader } from './SessionHeader.tsx';
import { SummarySection } from './SummarySection.tsx';
import { useLiveTranscript } from '../../realtime/live-socket.ts';
import type { LiveSnapshot, LiveStatus } from '../../realtime/live-types.ts';
import { useAudioTracks } from '../audio/SessionAudio.tsx';
import { usePlayMoment, useSessionPlayer } from '../audio/use-session-player.tsx';
import { useMoment } from '../search/moment.ts';
import { ConnectionState, DeleteSessionModal, RetryTranscriptionButton } from './SessionControls.tsx';
import { TranscriptLines } from './TranscriptLines.tsx';
import { SessionSpotlightCard } from '../spotlight/SessionSpotlight.tsx';
import { SessionCost } from '../usage/SessionCost.tsx';
import { applyPrepUpdate } from '../planning/prep/prep-cache.ts';
import { LivePrepCard } from '../planning/prep/PrepChecklist.tsx';
import { SpeakerNames } from './tools/SpeakerNames.tsx';
import { SummaryOutdatedNote } from './tools/SummaryOutdatedNote.tsx';
import { useSpeakerNames, useTranscriptTools } from './tools/use-transcript-tools.ts';
import { isActive, isTranscribing, pollInterval } from './session-status.ts';
import { interimLines, linesFromContent, liveFinalLines } from './transcript-view.ts';
import './transcript-viewer.css';

/**
 * After session_end: the stored transcript, the lists (sidebar, dashboards, group cards,
 * active sessions) and the groups are read again. Should the server still call the session
 * active, the socket's word stands: the page shows it ended, so it stops waiting for lines.
 */
async function refreshEndedSession(queryClient: QueryClient, sessionId: string) {
  const key = queryKeys.transcript(sessionId);
  await queryClient.invalidateQueries({ queryKey: key, exact: true });
  const current = queryClient.getQueryData<TranscriptDetail>(key);
  if (current && isActive(current)) {
    const ended: TranscriptDetail = { ...current, status: 'ended' };
    queryClient.setQueryData<TranscriptDetail>(key, ended);
    syncSessionInCaches(queryClient, ended);
  }
  await Promise.all([
    queryClient.invalidateQueries({ queryKey: queryKeys.transcripts }),
    queryClient.invalidateQueries({ queryKey: queryKeys.groups }),
  ]);
}

const isNotFound = (error: unknown) => isApiError(error) && error.httpStatus === 404;

function TranscriptSection({
  session,
  live,
  onDelete,
}: {
  session: TranscriptDetail;
  live: LiveSnapshot;
  onDelete: () => void;
}) {
  const active = isActive(session);
  // The stored text parses once per change of text, not once per live line.
  const stored = useMemo(() => linesFromContent(session.content), [session.content]);
  const lines = useMemo(
    () =>
      active
        ? liveFinalLines(live, session.content, (text) =>
            text === session.content ? stored : linesFromContent(text),
          )
        : stored,
    [active, live, session.content, stored],
  );
  const interims = useMemo(() => (active ? interimLines(live) : []), [active, live]);
  // Speaker names and line edits (tools/): what the user named and fixed shows on every line.
  const tools = useTranscriptTools(session.id, lines);
  const speakerNames = useSpeakerNames(session.id);
  const namedInterims = useMemo(
    () =>
      interims.map((l) =>
        l.speaker && speakerNames.has(l.speaker) ? { ...l, speaker: speakerNames.get(l.speaker)! } : l,
      ),
    [interims, speakerNames],
  );
  const moment = useMoment();
  const { player, lineProps } = useSessionPlayer(session, speakerNames);
  // A voice-bot session recorded while no provider was set: ended with no lines, its speakers'
  // tracks kept (the same query as the player's, so it is read once).
  const recordedWithoutLines = session.source === 'live' && !active && session.content.trim() === '';
  const tracks = useAudioTracks(session.id, recordedWithoutLines);
  usePlayMoment(moment, tools.lines, lineProps.onTimeClick);

  let body;
  if (isTranscribing(session)) {
    body = (
      <div className="viewer-progress" role="status">
        <div className="viewer-progress-label">
          <span className="spinner" aria-hidden="true" />
          <span>Transcribing audio...</span>
        </div>
        <div className="viewer-progress-bar" aria-hidden="true">
          <span />
        </div>
        <p className="muted small">
          {session.transcription_status === 'queued'
            ? 'The recording is waiting its turn to be transcribed.'
            : 'The recording is being transcribed.'}{' '}
          The transcript appears here when it is ready.
        </p>
      </div>
    );
  } else if (session.transcription_status === 'failed') {
    // The title already says what failed: a reason that repeats it is shown without the prefix.
    const reason = (session.transcription_error || 'The recording could not be transcribed.').replace(
      /^Transcription failed:\s*/i,
      '',
    );
    body = (
      <div className="notice notice-error" role="alert">
        <p className="viewer-failed-title">Transcription failed</p>
        <p className="viewer-failed-detail">{reason}</p>
        {session.transcription_retryable ? (
          <p className="viewer-failed-detail">
            This session has no transcript yet, so there is nothing to summarise or chat about. The recording
            is still stored: try the transcription again, or delete the session.
          </p>
        ) : (
          <p className="viewer-failed-detail">
            This session has no transcript, so there is nothing to summarise or chat about. Delete it, then
            add the session again with the recording or with its transcript text.
          </p>
        )}
        <div className="button-row viewer-failed-actions">
          {session.transcription_retryable && <RetryTranscriptionButton session={session} />}
          <button type="button" className="button button-danger" onClick={onDelete}>
            Delete session
          </button>
        </div>
      </div>
    );
  } else if (
    session.transcription_status === 'none' &&
    (session.source === 'audio' || (recordedWithoutLines && (tracks.data?.length ?? 0) > 0))
  ) {
    body = (
      <div className="notice" role="status">
        <p className="viewer-failed-title">Not transcribed yet</p>
        <p className="viewer-failed-detail">
          The recording is kept and plays above. It was saved while no speech-to-text provider was set; once
          one is configured, transcribe it now.
        </p>
        <div className="button-row viewer-failed-actions">
          <RetryTranscriptionButton session={session} kind="now" />
        </div>
      </div>
    );
  } else if (lines.length === 0 && interims.length === 0) {
    body = (
      <p className="muted viewer-empty">
        {active
          ? 'No transcript lines yet. They appear here as the recording is transcribed.'
          : 'This session has no transcript.'}
      </p>
    );
  } else {
    body = (
      <TranscriptLines
        lines={tools.lines}
        interims={namedInterims}
        lineTools={tools.tools}
        live={active}
        jumpLabel={live.status === 'live' ? 'Jump to live' : 'Jump to latest'}
        moment={moment}
        {...lineProps}
      />
    );
  }
  return (
    <>
      <section className="card viewer-transcript" aria-labelledby="viewer-transcript-title">
        <div className="viewer-section-header">
          <h2 id="viewer-transcript-title" className="card-title">
            Transcript
          </h2>
          {active ? <ConnectionState status={live.status} /> : null}
        </div>
        <SpeakerNames sessionId={session.id} />
        {session.source === 'live' && session.transcription_error ? (
          // The recording was cut short (the speech service stayed down): the lines up to then are kept.
          <div className="notice notice-error" role="alert">
            <p className="viewer-failed-title">The recording stopped early</p>
            <p className="viewer-failed-detail">{session.transcription_error}</p>
          </div>
        ) : null}
        {player}
        {body}
      </section>
      {isTranscribing(session) || session.transcription_status === 'failed' ? null : (
        <SessionSpotlightCard session={session} active={active} lines={lines} />
      )}
      {active && session.group_id ? (
        <LivePrepCard groupId={session.group_id} transcriptId={session.id} />
      ) : null}
    </>
  );
}

function TranscriptViewer({ sessionId }: { sessionId: string }) {
  const queryClient = useQueryClient();
  const [notesOpen, setNotesOpen] = useState(false);
  // Both drawers sit at the right edge: opening one closes the other.
  const [chatOpen, setChatOpen] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const liveStatusRef = useRef<LiveStatus>('offline');
  const query = useQuery({
    queryKey: queryKeys.transcript(sessionId),
    queryFn: () => getTranscript(sessionId),
    ...cacheTimes.transcriptDetail,
    refetchInterval: (q) => pollInterval(q.state.data, liveStatusRef.current === 'live'),
    // A missing or refused session will not appear by asking again.
    retry: (count, error) =>
      count < 2 && !(isApiError(error) && error.httpStatus !== undefined && error.httpStatus < 500),
  });
  const session = query.data;

  // An active session's lines come over the live socket; the session's end refetches the
  // stored transcript (which then replaces the live lines) and every list that shows it.
  const onLiveEnd = useCallback(() => {
    void refreshEndedSession(queryClient, sessionId);
  }, [queryClient, sessionId]);
  const onPrep = useCallback((update: PrepUpdate) => applyPrepUpdate(queryClient, update), [queryClient]);
  const live = useLiveTranscript(sessionId, Boolean(session && isActive(session)), onLiveEnd, onPrep);
  useEffect(() => {
    liveStatusRef.current = live.status;
  }, [live.status]);

  // What polling learns (a finished transcription, a new name) reaches the sidebar and dashboards too.
  useEffect(() => {
    if (session) syncSessionInCaches(queryClient, session);
  }, [queryClient, session]);

  if (query.isPending) {
    return (
      <div className="page">
        <div className="content-center">
          <Spinner label="Loading session..." />
        </div>
      </div>
    );
  }

  if (!session) {
    return (
      <div className="page page-narrow">
        {isNotFound(query.error) ? (
          <section className="card viewer-not-found" aria-labelledby="viewer-not-found-title">
            <h1 id="viewer-not-found-title" className="page-title">
              Session not found
            </h1>
            <p className="muted">This session does not exist, or it belongs to someone else.</p>
            <Link className="button button-primary" to="/">
              Back to Dashboard
            </Link>
          </section>
        ) : (
          <p className="notice notice-error" role="alert">
            Failed to load session details.
          </p>
        )}
      </div>
    );
  }

  return (
    <div className="page viewer-page">
      <SessionHeader
        session={session}
        onOpenNotes={() => {
          setChatOpen(false);
          setNotesOpen(true);
        }}
        onOpenChat={() => {
          setNotesOpen(false);
          setChatOpen(true);
        }}
        onDelete={() => setDeleting(true)}
      />
      <SessionCost sessionId={sessionId} />
      {!isActive(session) ? (
        <>
          <SummarySection session={session} hasTranscript={Boolean(session.content?.trim())} />
          <SummaryOutdatedNote session={session} />
        </>
      ) : null}
      <TranscriptSection session={session} live={live} onDelete={() => setDeleting(true)} />
      <NotesDrawer sessionId={sessionId} open={notesOpen} onClose={() => setNotesOpen(false)} />
      <ChatDrawer transcriptId={sessionId} open={chatOpen} onClose={() => setChatOpen(false)} />
      {deleting && !isActive(session) ? (
        <DeleteSessionModal session={session} onClose={() => setDeleting(false)} />
      ) : null}
    </div>
  );
}

/** /sessions/:sessionId. */
export function TranscriptViewerPage() {
  const { sessionId = '' } = useParams();
  // Keyed by the session: opening another one starts with the notes drawer closed and no edit in progress.
  return <TranscriptViewer key={sessionId} sessionId={sessionId} />;
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import toast from 'react-hot-toast';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { isApiError } from '../../api/http.ts';
import {
  deleteTranscript,
  dropSessionFromCaches,
  getTranscript,
  syncSessionInCaches,
} from '../../api/transcripts.ts';
import type { TranscriptDetail } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { Modal, ModalActions } from '../dashboard/Modal.tsx';
import { ChatDrawer } from '../chat/ChatDrawer.tsx';
import { NotesDrawer } from '../notes/NotesDrawer.tsx';
import { SessionHeader } from './SessionHeader.tsx';
import { SummarySection } from './SummarySection.tsx';
import { TranscriptLines } from './TranscriptLines.tsx';
import { isActive, isTranscribing, pollInterval } from './session-status.ts';
import './transcript-viewer.css';

const isNotFound = (error: unknown) => isApiError(error) && error.httpStatus === 404;

function DeleteSessionModal({ session, onClose }: { session: TranscriptDetail; onClose: () => void }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const remove = useMutation({
    mutationFn: () => deleteTranscript(session.id),
    onSuccess: () => {
      toast.success('Session deleted successfully');
      // Leave first: dropping the cache entry under a mounted viewer would make it fetch the deleted session.
      void navigate('/', { replace: true });
      dropSessionFromCaches(queryClient, session.id);
    },
    onError: (cause) => {
      console.error('Failed to delete session', cause);
      toast.error('Failed to delete session');
    },
  });

  return (
    <Modal
      title="Delete Session"
      onClose={onClose}
      footer={
        <ModalActions
          onCancel={onClose}
          danger
          label="Delete"
          pendingLabel="Deleting..."
          pending={remove.isPending}
          onConfirm={() => remove.mutate()}
        />
      }
    >
      <p>
        Are you sure you want to delete <strong>{session.name}</strong>? Its transcript, summary and notes
        will be permanently removed.
      </p>
    </Modal>
  );
}

function TranscriptSection({ session }: { session: TranscriptDetail }) {
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
    body = (
      <div className="notice notice-error" role="alert">
        <p className="viewer-failed-title">Transcription failed</p>
        <p className="viewer-failed-detail">
          {session.transcription_error || 'The recording could not be transcribed.'}
        </p>
      </div>
    );
  } else if (!session.content.trim()) {
    body = (
      <p className="muted viewer-empty">
        {isActive(session)
          ? 'No transcript lines yet. They appear here as the recording is transcribed.'
          : 'This session has no transcript.'}
      </p>
    );
  } else {
    body = <TranscriptLines content={session.content} />;
  }
  return (
    <section className="card viewer-transcript" aria-labelledby="viewer-transcript-title">
      <div className="viewer-section-header">
        <h2 id="viewer-transcript-title" className="card-title">
          Transcript
        </h2>
        {isActive(session) ? <span className="muted small">Updates every few seconds</span> : null}
      </div>
      {body}
    </section>
  );
}

function TranscriptViewer({ sessionId }: { sessionId: string }) {
  const queryClient = useQueryClient();
  const [notesOpen, setNotesOpen] = useState(false);
  // Both drawers sit at the right edge: opening one closes the other.
  const [chatOpen, setChatOpen] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const query = useQuery({
    queryKey: queryKeys.transcript(sessionId),
    queryFn: () => getTranscript(sessionId),
    ...cacheTimes.transcriptDetail,
    refetchInterval: (q) => pollInterval(q.state.data),
    // A missing or refused session will not appear by asking again.
    retry: (count, error) =>
      count < 2 && !(isApiError(error) && error.httpStatus !== undefined && error.httpStatus < 500),
  });
  const session = query.data;

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
      {!isActive(session) ? <SummarySection session={session} /> : null}
      <TranscriptSection session={session} />
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

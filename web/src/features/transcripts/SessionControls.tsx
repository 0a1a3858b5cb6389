// The viewer's session controls: delete the session, retry a failed transcription, and the
// live connection's state.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import toast from 'react-hot-toast';
import { useNavigate } from 'react-router-dom';
import { errorDetail } from '../../api/http.ts';
import {
  deleteTranscript,
  dropSessionFromCaches,
  retryTranscription,
  transcribeNow,
  syncSessionInCaches,
} from '../../api/transcripts.ts';
import type { TranscriptDetail } from '../../api/types.ts';
import { queryKeys } from '../../app/query-client.ts';
import type { LiveStatus } from '../../realtime/live-types.ts';
import { Modal, ModalActions } from '../dashboard/Modal.tsx';

export function DeleteSessionModal({ session, onClose }: { session: TranscriptDetail; onClose: () => void }) {
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

/** What the connection state reads while a session is active ('Reconnecting...' while it retries). */
const CONNECTION_TEXT: Record<LiveStatus, string> = {
  connecting: 'Connecting...',
  live: 'Connected',
  reconnecting: 'Reconnecting...',
  ended: 'Session ended',
  offline: 'Offline: updates every few seconds',
};

export function ConnectionState({ status }: { status: LiveStatus }) {
  return (
    <span className={`viewer-connection is-${status}`} role="status">
      <span className="viewer-connection-dot" aria-hidden="true" />
      {CONNECTION_TEXT[status]}
    </span>
  );
}

const TRANSCRIBE_ACTIONS = {
  retry: {
    run: retryTranscription,
    label: 'Retry transcription',
    done: 'Transcription queued again',
    failed: 'Failed to retry the transcription',
  },
  now: {
    run: transcribeNow,
    label: 'Transcribe now',
    done: 'Transcription queued',
    failed: 'Failed to start the transcription',
  },
};

/**
 * 'Retry transcription' queues a failed transcription again from the recording the server
 * kept; 'Transcribe now' (`kind="now"`) one kept while no speech provider was set.
 */
export function RetryTranscriptionButton({
  session,
  kind = 'retry',
}: {
  session: TranscriptDetail;
  kind?: keyof typeof TRANSCRIBE_ACTIONS;
}) {
  const queryClient = useQueryClient();
  const action = TRANSCRIBE_ACTIONS[kind];
  const retry = useMutation({
    mutationFn: () => action.run(session.id),
    onSuccess: (item) => {
      toast.success(action.done);
      syncSessionInCaches(queryClient, item);
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcript(session.id), exact: true });
    },
    onError: (cause) => {
      console.error(action.failed, cause);
      toast.error(errorDetail(cause, action.failed));
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcript(session.id), exact: true });
    },
  });
  return (
    <button
      type="button"
      className="button button-primary"
      disabled={retry.isPending}
      onClick={() => retry.mutate()}
    >
      {retry.isPending ? 'Queueing...' : action.label}
    </button>
  );
}

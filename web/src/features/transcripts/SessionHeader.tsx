import { SESSION_NAME_MAX } from '@chronicler/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent, type KeyboardEvent } from 'react';
import toast from 'react-hot-toast';
import { Link } from 'react-router-dom';
import { listGroups } from '../../api/lists.ts';
import { renameTranscript, syncSessionInCaches } from '../../api/transcripts.ts';
import type { TranscriptSummaryItem } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import {
  CalendarIcon,
  ChatIcon,
  FolderIcon,
  NotesIcon,
  PencilIcon,
  TrashIcon,
} from '../../components/icons.tsx';
import { ExportMenu, SESSION_EXPORTS } from '../../components/ExportMenu.tsx';
import { formatSessionDate } from '../dashboard/dashboard-data.ts';
import { GroupAssignmentModal, groupRouteId } from './GroupAssignmentModal.tsx';
import { isActive, isTranscribing } from './session-status.ts';
import { ShareButton } from '../shares/ShareButton.tsx';

function StatusBadges({ session }: { session: TranscriptSummaryItem }) {
  return (
    <>
      {isActive(session) ? (
        <span className="viewer-badge viewer-badge-active">
          <span className="viewer-live-dot" aria-hidden="true" />
          Active
        </span>
      ) : (
        <span className="viewer-badge">Ended</span>
      )}
      {isTranscribing(session) ? (
        <span className="viewer-badge viewer-badge-progress">Transcribing...</span>
      ) : null}
      {session.transcription_status === 'failed' ? (
        <span className="viewer-badge viewer-badge-failed" title={session.transcription_error || undefined}>
          Transcription failed
        </span>
      ) : null}
    </>
  );
}

function SessionName({ session }: { session: TranscriptSummaryItem }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<string | null>(null);
  const rename = useMutation({
    mutationFn: (name: string) => renameTranscript(session.id, name),
    onSuccess: (updated) => {
      syncSessionInCaches(queryClient, updated);
      toast.success('Transcript renamed successfully');
      setDraft(null);
    },
    onError: (cause) => {
      console.error('Failed to rename transcript', cause);
      toast.error('Failed to rename transcript');
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft === null || rename.isPending) return;
    const name = draft.trim();
    if (!name) {
      window.alert('Transcript name cannot be empty.');
      return;
    }
    if (name === session.name) {
      setDraft(null);
      return;
    }
    rename.mutate(name);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      setDraft(null);
    }
  };

  if (draft === null) {
    return (
      <div className="viewer-title-row">
        <h1 className="page-title viewer-title">{session.name}</h1>
        <button
          type="button"
          className="icon-button"
          aria-label="Rename session"
          title="Rename session"
          onClick={() => setDraft(session.name)}
        >
          <PencilIcon />
        </button>
      </div>
    );
  }
  return (
    <form className="viewer-rename" onSubmit={submit} noValidate>
      <label className="visually-hidden" htmlFor="viewer-rename-input">
        Session name
      </label>
      <input
        id="viewer-rename-input"
        className="text-input viewer-rename-input"
        type="text"
        maxLength={SESSION_NAME_MAX}
        autoComplete="off"
        // The user asked to rename: the field is where they will type next.
        autoFocus
        value={draft}
        disabled={rename.isPending}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="button-row">
        <button type="submit" className="button button-primary" disabled={rename.isPending}>
          {rename.isPending ? 'Saving...' : 'Save'}
        </button>
        <button
          type="button"
          className="button button-secondary"
          disabled={rename.isPending}
          onClick={() => setDraft(null)}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}

interface SessionHeaderProps {
  session: TranscriptSummaryItem;
  onOpenNotes: () => void;
  onOpenChat: () => void;
  onDelete: () => void;
}

/** Name (renamable), date, state, group membership and the session's actions. */
export function SessionHeader({ session, onOpenNotes, onOpenChat, onDelete }: SessionHeaderProps) {
  const [assigning, setAssigning] = useState(false);
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups, ...cacheTimes.groupList });
  const groupId = session.group_id ?? '';
  const group = groupId ? groups.data?.find((item) => groupRouteId(item) === groupId) : undefined;
  const sessionPath = `/sessions/${encodeURIComponent(session.id)}`;

  return (
    <header className="card viewer-header">
      <SessionName key={session.id} session={session} />

      <div className="viewer-meta">
        <span className="viewer-meta-item">
          <CalendarIcon />
          {formatSessionDate(session.session_timestamp)}
        </span>
        <StatusBadges session={session} />
      </div>

      <div className="viewer-group">
        <FolderIcon />
        <span className="viewer-group-label">Group:</span>
        {!groupId ? (
          <span className="muted">No group</span>
        ) : group ? (
          <Link to={`/groups/${encodeURIComponent(groupId)}`} className="viewer-group-name">
            {group.name}
          </Link>
        ) : (
          <span className="muted">{groups.isPending ? 'Loading...' : 'Unknown group'}</span>
        )}
        <button type="button" className="link-button viewer-group-button" onClick={() => setAssigning(true)}>
          {groupId ? 'Change group' : 'Assign to group'}
        </button>
      </div>

      <div className="button-row viewer-actions">
        <Link className="button button-secondary" to={`${sessionPath}/edit`}>
          Edit
        </Link>
        <button type="button" className="button button-secondary" onClick={onOpenNotes}>
          <NotesIcon />
          Notes
        </button>
        <button type="button" className="button button-secondary" onClick={onOpenChat}>
          <ChatIcon />
          Chat
        </button>
        <Link className="button button-secondary" to={`${sessionPath}/notes`}>
          Notes page
        </Link>
        <ExportMenu
          basePath={`/transcripts/${encodeURIComponent(session.id)}/export`}
          choices={SESSION_EXPORTS}
        />
        <ShareButton kind="transcript" targetId={session.id} name={session.name} />
        {!isActive(session) ? (
          <button type="button" className="button button-secondary viewer-delete" onClick={onDelete}>
            <TrashIcon />
            Delete
          </button>
        ) : null}
      </div>

      {assigning ? (
        <GroupAssignmentModal
          session={session}
          groups={groups.data ?? []}
          onClose={() => setAssigning(false)}
        />
      ) : null}
    </header>
  );
}

import { GROUP_NAME_MAX } from '@chronicler/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import toast from 'react-hot-toast';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { updateGroup } from '../../api/groups.ts';
import { listGroups, listTranscripts } from '../../api/lists.ts';
import type { GroupSummaryItem, TranscriptSummaryItem } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { ChevronDownIcon, PencilIcon, PlusIcon, RefreshIcon } from '../../components/icons.tsx';
import { useAuth } from '../auth/useAuth.ts';
import { formatSessionDate } from '../dashboard/dashboard-data.ts';
import {
  GenerateCampaignSummaryButton,
  LlmCampaignSummary,
  useCampaignSummaryCheck,
} from './CampaignSummaryAi.tsx';
import { SessionBadges } from './SessionBadges.tsx';
import {
  findGroup,
  groupRouteId,
  isActive,
  previewText,
  SUMMARY_PREVIEW_CHARS,
  sessionsOfGroup,
} from './session-data.ts';
import './group-dashboard.css';

/** The server's limit on a campaign summary, checked here first so the user sees why. */
const CAMPAIGN_SUMMARY_MAX = 10_000;

/** Puts the server's answer in the cached group list so the sidebar and dashboards show it at once. */
function useGroupUpdate(group: GroupSummaryItem) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: { name?: string; summary?: string }) => updateGroup(group.id, changes),
    onSuccess: (updated) => {
      queryClient.setQueryData<GroupSummaryItem[]>(queryKeys.groups, (old) =>
        old?.map((item) => (item.id === group.id ? { ...item, ...updated } : item)),
      );
    },
  });
}

function GroupName({ group }: { group: GroupSummaryItem }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(group.name);
  const update = useGroupUpdate(group);
  const inputId = useId();
  const trimmed = draft.trim();

  const cancel = () => {
    setEditing(false);
    setDraft(group.name);
  };
  const save = (event: FormEvent) => {
    event.preventDefault();
    if (!trimmed || update.isPending) return;
    update.mutate(
      { name: trimmed },
      {
        onSuccess: () => {
          setEditing(false);
          toast.success('Group updated successfully');
        },
        // The specification keeps a failed rename to the log; the editor stays open with
        // the text, so nothing looks saved that was not.
        onError: (error) => console.error('Failed to update group name', error),
      },
    );
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') cancel();
  };

  if (!editing) {
    return (
      <div className="group-name-row">
        <h1 className="page-title group-name">{group.name}</h1>
        <button
          type="button"
          className="icon-button"
          aria-label="Edit group name"
          title="Edit group name"
          onClick={() => {
            setDraft(group.name);
            setEditing(true);
          }}
        >
          <PencilIcon />
        </button>
      </div>
    );
  }
  return (
    <form className="group-name-form" onSubmit={save}>
      <label htmlFor={inputId} className="visually-hidden">
        Group name
      </label>
      <input
        id={inputId}
        className="text-input group-name-input"
        type="text"
        maxLength={GROUP_NAME_MAX}
        value={draft}
        autoComplete="off"
        // The user just asked to edit: the field is where their typing should go.
        autoFocus
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="button-row">
        <button type="submit" className="button button-primary" disabled={!trimmed || update.isPending}>
          {update.isPending ? 'Saving...' : 'Save'}
        </button>
        <button type="button" className="button button-secondary" onClick={cancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function CampaignSummary({ group }: { group: GroupSummaryItem }) {
  const { isAdmin } = useAuth();
  const [open, setOpen] = useState(true);
  const [showAll, setShowAll] = useState(false);
  const [editing, setEditing] = useState(false);
  const summary = group.summary ?? '';
  const [draft, setDraft] = useState(summary);
  const update = useGroupUpdate(group);
  const bodyId = useId();
  const fieldId = useId();
  const tooLong = draft.length > CAMPAIGN_SUMMARY_MAX;
  const long = summary.length > SUMMARY_PREVIEW_CHARS;

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (tooLong || update.isPending) return;
    update.mutate(
      { summary: draft },
      {
        onSuccess: () => {
          setEditing(false);
          toast.success('Group updated successfully');
        },
        onError: (error) => {
          console.error('Failed to update campaign summary', error);
          toast.error('Failed to update group');
        },
      },
    );
  };

  return (
    <section className="card group-section">
      <div className="group-section-head">
        <h2 className="card-title group-section-title">
          <button
            type="button"
            className="group-collapse"
            aria-expanded={open}
            aria-controls={bodyId}
            onClick={() => setOpen((value) => !value)}
          >
            <span className={open ? 'group-chevron is-open' : 'group-chevron'}>
              <ChevronDownIcon />
            </span>
            Campaign Summary
          </button>
        </h2>
        {open && !editing && (
          <div className="button-row">
            <button
              type="button"
              className="button button-secondary group-small-button"
              onClick={() => {
                setDraft(summary);
                setEditing(true);
              }}
            >
              <PencilIcon />
              Edit
            </button>
            {isAdmin ? <GenerateCampaignSummaryButton group={group} /> : null}
          </div>
        )}
      </div>
      <div id={bodyId} hidden={!open} className="group-section-body">
        {editing ? (
          <form onSubmit={save}>
            <label htmlFor={fieldId} className="field-label">
              Campaign summary
            </label>
            <textarea
              id={fieldId}
              className="text-input group-summary-input"
              rows={8}
              value={draft}
              aria-invalid={tooLong || undefined}
              aria-describedby={tooLong ? `${fieldId}-error` : undefined}
              onChange={(event) => setDraft(event.target.value)}
            />
            {tooLong && (
              <p id={`${fieldId}-error`} className="field-error">
                Summary cannot exceed 10,000 characters
              </p>
            )}
            <div className="button-row group-form-actions">
              <button type="submit" className="button button-primary" disabled={tooLong || update.isPending}>
                {update.isPending ? 'Saving...' : 'Save'}
              </button>
              <button
                type="button"
                className="button button-secondary"
                onClick={() => {
                  setEditing(false);
                  setDraft(summary);
                }}
              >
                Cancel
              </button>
            </div>
          </form>
        ) : summary.trim() ? (
          <>
            <p className="group-summary-text">{showAll || !long ? summary : previewText(summary)}</p>
            {long && (
              <button type="button" className="link-button" onClick={() => setShowAll((value) => !value)}>
                {showAll ? 'Show less' : 'Show more'}
              </button>
            )}
          </>
        ) : (
          <p className="muted">No campaign summary yet.</p>
        )}
      </div>
    </section>
  );
}

function sessionSummaryText(session: TranscriptSummaryItem): { text: string; empty: boolean } {
  if (isActive(session))
    return { text: 'Summary is not available while the session is in progress.', empty: true };
  const summary = session.summary?.trim();
  if (summary) return { text: previewText(summary), empty: false };
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

function GroupNotFound() {
  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">Group not found</h1>
      </header>
      <p className="muted">This group does not exist, or it is not one of yours.</p>
      <p>
        <Link to="/" className="button button-secondary">
          Back to Dashboard
        </Link>
      </p>
    </div>
  );
}

function GroupDashboard({ group, sessions }: { group: GroupSummaryItem; sessions: TranscriptSummaryItem[] }) {
  const queryClient = useQueryClient();
  const { isAdmin } = useAuth();
  useCampaignSummaryCheck(group);
  const routeId = groupRouteId(group);
  const [refreshing, setRefreshing] = useState(false);
  const refresh = async () => {
    setRefreshing(true);
    try {
      await Promise.all([
        queryClient.refetchQueries({ queryKey: queryKeys.groups, exact: true }),
        queryClient.refetchQueries({ queryKey: queryKeys.transcripts, exact: true }),
      ]);
    } finally {
      setRefreshing(false);
    }
  };

  return (
    <div className="page group-dashboard">
      <header className="page-header group-header">
        <div className="group-header-main">
          <GroupName group={group} />
          <p className="muted group-count">{`${sessions.length} session(s)`}</p>
        </div>
        <div className="button-row group-header-actions">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => void refresh()}
            disabled={refreshing}
          >
            <RefreshIcon />
            {refreshing ? 'Refreshing...' : 'Refresh'}
          </button>
          <Link to={`/groups/${routeId}/add-session`} className="button button-primary">
            <PlusIcon />
            Add Session
          </Link>
        </div>
      </header>

      <CampaignSummary group={group} />

      <section className="card group-section">
        <h2 className="card-title">Campaign Planning</h2>
        <p className="muted">Plan the next session with an AI assistant beside a shared planning document.</p>
        <Link to={`/groups/${routeId}/planning`} className="button button-primary">
          Enter Planning Mode
        </Link>
      </section>

      {isAdmin ? <LlmCampaignSummary group={group} /> : null}

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
      </section>
    </div>
  );
}

export function GroupDashboardPage() {
  const { groupId } = useParams();
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups, ...cacheTimes.groupList });
  const transcripts = useQuery({
    queryKey: queryKeys.transcripts,
    queryFn: listTranscripts,
    ...cacheTimes.transcriptList,
    // Automatic summaries finish in the background: the cards follow until they are done.
    refetchInterval: (query) =>
      query.state.data?.some((session) => session.summary_status === 'generating') ? 3000 : false,
  });

  if (groups.isPending || transcripts.isPending) {
    return (
      <div className="content-center">
        <Spinner label="Loading group..." />
      </div>
    );
  }
  const group = findGroup(groups.data, groupId);
  if (!group) return <GroupNotFound />;
  // Keyed by group: moving to another group starts with the name and summary editors closed.
  return (
    <GroupDashboard key={group.id} group={group} sessions={sessionsOfGroup(transcripts.data ?? [], group)} />
  );
}

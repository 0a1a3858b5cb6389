import { GROUP_NAME_MAX } from '@chronicler/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { Link, useNavigate } from 'react-router-dom';
import { createGroup, deleteGroup } from '../../api/groups.ts';
import { listGroups } from '../../api/lists.ts';
import { sessionPagesRoot, useSessionPages } from '../../api/session-pages.ts';
import { getUserStats } from '../../api/stats.ts';
import type { GroupSummaryItem, TranscriptSummaryItem } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { TrashIcon } from '../../components/icons.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { isApiError } from '../../api/http.ts';
import { Modal, ModalActions } from './Modal.tsx';
import {
  formatCount,
  formatHours,
  formatSessionDate,
  RECENT_SESSIONS_SHOWN,
  recentSessions,
  statsRange,
} from './dashboard-data.ts';
import { AudioStorageCard } from '../audio/AudioStorageCard.tsx';

/** The id a group's page and its sessions use. */
const groupRouteId = (group: GroupSummaryItem) => group.group_id || group.id;

function StatCard({ label, value, loading }: { label: string; value: string; loading: boolean }) {
  return (
    <div className="card stat-card">
      <h2 className="stat-label">{label}</h2>
      <p className="stat-value" aria-busy={loading || undefined}>
        {value}
      </p>
    </div>
  );
}

function StatCards() {
  const [range] = useState(statsRange);
  const stats = useQuery({
    queryKey: ['users', 'stats', range.start, range.end],
    queryFn: () => getUserStats(range.start, range.end),
    // A missing endpoint or a refused request will not get better by asking again.
    retry: (count, error) =>
      count < 2 && !(isApiError(error) && error.httpStatus !== undefined && error.httpStatus < 500),
  });
  return (
    <div className="stat-grid">
      <StatCard
        label="Transcription Time (30 days)"
        value={formatHours(stats.data?.transcription_hours)}
        loading={stats.isPending}
      />
      <StatCard
        label="AI Requests (30 days)"
        value={formatCount(stats.data?.ai_requests_total)}
        loading={stats.isPending}
      />
    </div>
  );
}

function CreateGroupModal({ onClose }: { onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: (groupName: string) => createGroup(groupName),
    onSuccess: (group) => {
      queryClient.setQueryData<GroupSummaryItem[]>(queryKeys.groups, (old) => [...(old ?? []), group]);
      if (group.session_ids && group.session_ids.length > 0) {
        void queryClient.invalidateQueries({ queryKey: queryKeys.transcripts });
      }
      toast.success('Group created successfully');
      onClose();
    },
    onError: (error) => {
      console.error('Failed to create group', error);
      toast.error('Failed to create group');
    },
  });
  const trimmed = name.trim();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!trimmed || create.isPending) return;
    create.mutate(trimmed);
  };

  return (
    <Modal
      title="Create New Group"
      onClose={onClose}
      footer={
        <ModalActions
          onCancel={onClose}
          form="create-group-form"
          label="Create"
          pendingLabel="Creating..."
          pending={create.isPending}
          disabled={!trimmed}
        />
      }
    >
      <form id="create-group-form" onSubmit={submit}>
        <label className="field-label" htmlFor="create-group-name">
          Group name
        </label>
        <input
          id="create-group-name"
          className="text-input"
          type="text"
          maxLength={GROUP_NAME_MAX}
          value={name}
          autoComplete="off"
          onChange={(event) => setName(event.target.value)}
        />
      </form>
    </Modal>
  );
}

function DeleteGroupModal({ group, onClose }: { group: GroupSummaryItem; onClose: () => void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => deleteGroup(group.id),
    onSuccess: () => {
      const ids = new Set([group.id, groupRouteId(group)]);
      queryClient.setQueryData<GroupSummaryItem[]>(queryKeys.groups, (old) =>
        old?.filter((item) => item.id !== group.id),
      );
      queryClient.setQueryData<TranscriptSummaryItem[]>(queryKeys.transcripts, (old) =>
        old?.map((item) => (item.group_id && ids.has(item.group_id) ? { ...item, group_id: '' } : item)),
      );
      // Its sessions are ungrouped now: the paged lists (the sidebar's) ask the server again.
      void queryClient.invalidateQueries({ queryKey: sessionPagesRoot });
      toast.success('Group deleted successfully');
      onClose();
    },
    onError: (error) => {
      console.error('Failed to delete group', error);
      toast.error('Failed to delete group');
    },
  });

  return (
    <Modal
      title="Delete Group"
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
      <p>Are you sure you want to delete the group? Sessions will become ungrouped.</p>
    </Modal>
  );
}

function RecentSessions({ transcripts }: { transcripts: TranscriptSummaryItem[] }) {
  const navigate = useNavigate();
  const recent = recentSessions(transcripts);
  return (
    <section className="card" aria-labelledby="recent-sessions-title">
      <h2 id="recent-sessions-title" className="card-title">
        Recent Sessions
      </h2>
      {recent.length === 0 ? (
        <p className="muted">You don&apos;t have any sessions yet.</p>
      ) : (
        <ul className="dashboard-list">
          {recent.map((session) => (
            <li key={session.id}>
              <button
                type="button"
                className="dashboard-list-item"
                onClick={() => void navigate(`/sessions/${session.id}`)}
              >
                <span className="dashboard-item-name">{session.name}</span>
                <span className="dashboard-item-meta">{formatSessionDate(session.session_timestamp)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function YourGroups({
  groups,
  onDelete,
}: {
  groups: GroupSummaryItem[];
  onDelete: (group: GroupSummaryItem) => void;
}) {
  const navigate = useNavigate();
  return (
    <section className="card" aria-labelledby="your-groups-title">
      <h2 id="your-groups-title" className="card-title">
        Your Groups
      </h2>
      <ul className="dashboard-list">
        {groups.map((group) => (
          <li key={group.id} className="dashboard-group-row">
            <button
              type="button"
              className="dashboard-list-item"
              onClick={() => void navigate(`/groups/${groupRouteId(group)}`)}
            >
              <span className="dashboard-item-name">{group.name}</span>
              <span className="dashboard-item-meta">
                {(group.session_ids?.length ?? 0) === 1
                  ? '1 session'
                  : `${group.session_ids?.length ?? 0} sessions`}
              </span>
            </button>
            <button
              type="button"
              className="icon-button dashboard-delete"
              aria-label={`Delete group ${group.name}`}
              title="Delete group"
              onClick={() => onDelete(group)}
            >
              <TrashIcon />
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

const RECENT_PAGE = { limit: RECENT_SESSIONS_SHOWN };

export function DashboardPage() {
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<GroupSummaryItem | null>(null);
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups, ...cacheTimes.groupList });
  // The newest few sessions are one page of the list, whatever the library's size.
  const transcripts = useSessionPages(RECENT_PAGE);
  const loading = groups.isPending || transcripts.isPending;

  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">Your Dashboard</h1>
      </header>

      <StatCards />

      {loading ? (
        <div className="content-center">
          <Spinner label="Loading your dashboard..." />
        </div>
      ) : (
        <div className="dashboard-grid">
          <RecentSessions transcripts={transcripts.data?.pages[0]?.items ?? []} />
          <section className="card" aria-labelledby="quick-actions-title">
            <h2 id="quick-actions-title" className="card-title">
              Quick Actions
            </h2>
            <div className="button-row dashboard-actions">
              <Link className="button button-primary" to="/add-session">
                New Session
              </Link>
              <Link className="button button-secondary" to="/record">
                Record at the table
              </Link>
              <button type="button" className="button button-secondary" onClick={() => setCreating(true)}>
                New Group
              </button>
            </div>
          </section>
          {groups.data && groups.data.length > 0 ? (
            <YourGroups groups={groups.data} onDelete={setDeleting} />
          ) : null}
          <AudioStorageCard />
        </div>
      )}

      {creating ? <CreateGroupModal onClose={() => setCreating(false)} /> : null}
      {deleting ? <DeleteGroupModal group={deleting} onClose={() => setDeleting(null)} /> : null}
    </div>
  );
}

import { GROUP_NAME_MAX } from '@chronicler/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import toast from 'react-hot-toast';
import { Link } from 'react-router-dom';
import type { GroupSummaryItem } from '../../api/types.ts';
import { sessionPagesRoot } from '../../api/session-pages.ts';
import { queryKeys } from '../../app/query-client.ts';
import { PencilIcon, PlusIcon, RefreshIcon } from '../../components/icons.tsx';
import { groupRouteId } from './session-data.ts';
import { useGroupUpdate } from './use-group-update.ts';
import { ShareButton } from '../shares/ShareButton.tsx';

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

/** The group's name (editable), its session count, Refresh and Add Session. */
export function GroupHeader({ group, sessionCount }: { group: GroupSummaryItem; sessionCount: number }) {
  const queryClient = useQueryClient();
  const routeId = groupRouteId(group);
  const [refreshing, setRefreshing] = useState(false);
  const refresh = async () => {
    setRefreshing(true);
    try {
      await Promise.all([
        queryClient.refetchQueries({ queryKey: queryKeys.groups, exact: true }),
        queryClient.refetchQueries({ queryKey: queryKeys.transcripts, exact: true }),
        queryClient.refetchQueries({ queryKey: sessionPagesRoot, type: 'active' }),
      ]);
    } finally {
      setRefreshing(false);
    }
  };

  return (
    <header className="page-header group-header">
      <div className="group-header-main">
        <GroupName group={group} />
        <p className="muted group-count">{`${sessionCount} session(s)`}</p>
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
        <ShareButton kind="group" targetId={group.id} name={group.name} />
        <Link to={`/groups/${routeId}/add-session`} className="button button-primary">
          <PlusIcon />
          Add Session
        </Link>
        <Link to={`/groups/${routeId}/record`} className="button button-secondary">
          Record at the table
        </Link>
      </div>
    </header>
  );
}

import { GROUP_NAME_MAX } from '@chronicler/contracts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { createGroup } from '../../api/groups.ts';
import { errorDetail } from '../../api/http.ts';
import { assignTranscriptGroup, removeTranscriptGroup, syncSessionInCaches } from '../../api/transcripts.ts';
import type { GroupSummaryItem, TranscriptSummaryItem } from '../../api/types.ts';
import { queryKeys } from '../../app/query-client.ts';
import { Modal, ModalActions } from '../dashboard/Modal.tsx';

/** The select's value that switches to typing a new group's name. */
const NEW_GROUP = '__new__';

export const groupRouteId = (group: GroupSummaryItem): string => group.group_id || group.id;

interface GroupAssignmentModalProps {
  session: TranscriptSummaryItem;
  groups: GroupSummaryItem[];
  onClose: () => void;
}

type Choice = { kind: 'existing'; groupId: string } | { kind: 'new'; name: string };

/**
 * Puts the session into one of the user's groups, or into a new one created by name, or
 * takes it out of its group. The server is only called when the group really changes.
 */
export function GroupAssignmentModal({ session, groups, onClose }: GroupAssignmentModalProps) {
  const queryClient = useQueryClient();
  const currentGroupId = session.group_id ?? '';
  const [selected, setSelected] = useState(currentGroupId);
  const [newName, setNewName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const creatingNew = selected === NEW_GROUP;
  const currentGroup = groups.find((group) => groupRouteId(group) === currentGroupId);
  // A retried or repeated save must not create the same new group twice.
  const created = useRef<{ name: string; groupId: string } | null>(null);

  const assign = useMutation({
    mutationFn: async (choice: Choice) => {
      let groupId: string;
      if (choice.kind === 'new' && created.current?.name === choice.name) {
        groupId = created.current.groupId;
      } else if (choice.kind === 'new') {
        const group = await createGroup(choice.name);
        created.current = { name: choice.name, groupId: groupRouteId(group) };
        queryClient.setQueryData<GroupSummaryItem[]>(queryKeys.groups, (old) =>
          old ? [...old, { ...group, session_ids: group.session_ids ?? [] }] : old,
        );
        groupId = groupRouteId(group);
      } else {
        groupId = choice.groupId;
      }
      return assignTranscriptGroup(session.id, groupId);
    },
    onSuccess: (updated) => {
      syncSessionInCaches(queryClient, updated);
      toast.success('Session assigned to group successfully');
      onClose();
    },
    onError: (cause) => {
      console.error('Failed to assign session to group', cause);
      toast.error('Failed to assign session to group');
      setError(errorDetail(cause, 'Failed to save. Please try again.'));
    },
  });

  const remove = useMutation({
    mutationFn: () => removeTranscriptGroup(session.id),
    onSuccess: (updated) => {
      syncSessionInCaches(queryClient, updated);
      toast.success('Session removed from group successfully');
      onClose();
    },
    onError: (cause) => {
      console.error('Failed to remove session from group', cause);
      toast.error('Failed to remove session from group');
      setError(errorDetail(cause, 'Failed to remove group. Please try again.'));
    },
  });

  const busy = assign.isPending || remove.isPending;
  const nothingChosen = selected === '' || (creatingNew && newName === '');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (busy || nothingChosen) return;
    setError(null);
    if (creatingNew) {
      const name = newName.trim();
      if (!name) {
        setError('New group name cannot be empty.');
        return;
      }
      assign.mutate({ kind: 'new', name });
      return;
    }
    if (selected === currentGroupId) {
      onClose();
      return;
    }
    assign.mutate({ kind: 'existing', groupId: selected });
  };

  return (
    <Modal
      title="Assign to Group"
      onClose={onClose}
      footer={
        <ModalActions
          onCancel={onClose}
          form="assign-group-form"
          label="Save Assignment"
          pendingLabel="Saving..."
          pending={assign.isPending}
          disabled={busy || nothingChosen}
        />
      }
    >
      <form id="assign-group-form" className="viewer-form" onSubmit={submit} noValidate>
        <div>
          <label className="field-label" htmlFor="assign-group-select">
            Group
          </label>
          <select
            id="assign-group-select"
            className="text-input"
            value={selected}
            onChange={(event) => {
              setSelected(event.target.value);
              setError(null);
            }}
          >
            <option value="">Select a group...</option>
            {groups.map((group) => (
              <option key={group.id} value={groupRouteId(group)}>
                {group.name}
              </option>
            ))}
            <option value={NEW_GROUP}>+ Create a new group</option>
          </select>
        </div>
        {creatingNew ? (
          <div>
            <label className="field-label" htmlFor="assign-group-new-name">
              New group name
            </label>
            <input
              id="assign-group-new-name"
              className="text-input"
              type="text"
              maxLength={GROUP_NAME_MAX}
              autoComplete="off"
              value={newName}
              aria-invalid={error === 'New group name cannot be empty.' || undefined}
              onChange={(event) => {
                setNewName(event.target.value);
                setError(null);
              }}
            />
          </div>
        ) : null}
        {currentGroupId ? (
          <div className="viewer-current-group">
            <span>
              Currently in <strong>{currentGroup?.name ?? 'a group'}</strong>
            </span>
            <button
              type="button"
              className="button button-secondary button-compact"
              disabled={busy}
              onClick={() => {
                setError(null);
                remove.mutate();
              }}
            >
              {remove.isPending ? 'Removing...' : 'Remove from group'}
            </button>
          </div>
        ) : null}
        {error ? (
          <p className="notice notice-error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </Modal>
  );
}

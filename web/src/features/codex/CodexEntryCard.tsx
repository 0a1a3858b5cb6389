import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Link } from 'react-router-dom';
import { patchCodexEntry, type CodexEntry, type CodexEntryPatch, type CodexKind } from '../../api/codex.ts';
import { errorDetail } from '../../api/http.ts';
import { formatOffsetLabel, KIND_LABELS } from './codex-data.ts';

const KINDS: CodexKind[] = ['person', 'place', 'item', 'faction', 'thread'];

/** The entry's editor: name, kind, other names and description, saved in one change. */
function EntryEditor({
  entry,
  saving,
  onSave,
  onCancel,
}: {
  entry: CodexEntry;
  saving: boolean;
  onSave: (change: CodexEntryPatch) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(entry.name);
  const [kind, setKind] = useState<CodexKind>(entry.kind);
  const [aliases, setAliases] = useState(entry.aliases.join(', '));
  const [description, setDescription] = useState(entry.description);
  const id = `codex-edit-${entry.id}`;
  return (
    <form
      className="codex-editor"
      onSubmit={(event) => {
        event.preventDefault();
        onSave({
          name,
          kind,
          description,
          aliases: aliases
            .split(',')
            .map((a) => a.trim())
            .filter(Boolean),
        });
      }}
    >
      <label htmlFor={`${id}-name`}>Name</label>
      <input
        id={`${id}-name`}
        className="text-input"
        value={name}
        maxLength={80}
        onChange={(e) => setName(e.target.value)}
      />
      <label htmlFor={`${id}-kind`}>Kind</label>
      <select
        id={`${id}-kind`}
        className="text-input"
        value={kind}
        onChange={(e) => setKind(e.target.value as CodexKind)}
      >
        {KINDS.map((k) => (
          <option key={k} value={k}>
            {KIND_LABELS[k].one}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-aliases`}>Other names (comma separated)</label>
      <input
        id={`${id}-aliases`}
        className="text-input"
        value={aliases}
        onChange={(e) => setAliases(e.target.value)}
      />
      <label htmlFor={`${id}-description`}>Description</label>
      <textarea
        id={`${id}-description`}
        className="text-input"
        rows={3}
        maxLength={2000}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <div className="button-row">
        <button type="submit" className="button button-primary" disabled={saving || !name.trim()}>
          {saving ? 'Saving...' : 'Save'}
        </button>
        <button type="button" className="button button-secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * One codex entry: what it is, where it was first and last named, and every kept moment as a
 * link that opens its session there. The game master edits it, marks it secret (players never
 * see it), hides it, or picks it for a merge.
 */
export function CodexEntryCard({
  groupId,
  entry,
  sessionNames,
  selected,
  onSelect,
}: {
  groupId: string;
  entry: CodexEntry;
  sessionNames: Map<string, string>;
  selected: boolean;
  onSelect: (selected: boolean) => void;
}) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const change = useMutation({
    mutationFn: (patch: CodexEntryPatch) => patchCodexEntry(groupId, entry.id, patch),
    onSuccess: () => {
      setEditing(false);
      void queryClient.invalidateQueries({ queryKey: ['codex', groupId] });
    },
    onError: (cause) => toast.error(errorDetail(cause, 'Failed to update the entry')),
  });
  const secret = entry.visibility === 'gm';
  return (
    <li className={`card codex-entry${entry.hidden ? ' is-hidden' : ''}`} data-entry-id={entry.id}>
      <div className="codex-entry-head">
        <input
          type="checkbox"
          aria-label={`Select ${entry.name} to merge`}
          checked={selected}
          onChange={(e) => onSelect(e.target.checked)}
        />
        <h3 className="codex-entry-name">{entry.name}</h3>
        <span className={`codex-kind codex-kind-${entry.kind}`}>{KIND_LABELS[entry.kind].one}</span>
        {secret ? <span className="codex-badge codex-secret">Secret</span> : null}
        {entry.hidden ? <span className="codex-badge">Hidden</span> : null}
      </div>
      {entry.aliases.length ? <p className="muted small">Also: {entry.aliases.join(', ')}</p> : null}
      {editing ? (
        <EntryEditor
          entry={entry}
          saving={change.isPending}
          onSave={(patch) => change.mutate(patch)}
          onCancel={() => setEditing(false)}
        />
      ) : entry.description ? (
        <p className="codex-description">{entry.description}</p>
      ) : null}
      <p className="muted small">
        Named {entry.mention_count} {entry.mention_count === 1 ? 'time' : 'times'}
        {entry.first_seen ? (
          <>
            {' · first in '}
            <Link to={entry.first_seen.link}>{entry.first_seen.session_name}</Link>
          </>
        ) : null}
        {entry.last_seen && entry.last_seen.transcript_id !== entry.first_seen?.transcript_id ? (
          <>
            {' · last in '}
            <Link to={entry.last_seen.link}>{entry.last_seen.session_name}</Link>
          </>
        ) : null}
      </p>
      {entry.mentions.length ? (
        <ul className="codex-mentions" aria-label={`Moments that name ${entry.name}`}>
          {entry.mentions.map((m) => (
            <li key={`${m.transcript_id}:${m.line}`}>
              <Link to={m.link} className="codex-mention">
                {sessionNames.get(m.transcript_id) ?? 'Session'} · {formatOffsetLabel(m.seconds, m.line)}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      {editing ? null : (
        <div className="button-row codex-actions">
          <button
            type="button"
            className="button button-secondary button-compact"
            onClick={() => setEditing(true)}
          >
            Edit
          </button>
          <button
            type="button"
            className="button button-secondary button-compact"
            disabled={change.isPending}
            onClick={() => change.mutate({ visibility: secret ? 'players' : 'gm' })}
          >
            {secret ? 'Show to players' : 'Mark secret'}
          </button>
          <button
            type="button"
            className="button button-secondary button-compact"
            disabled={change.isPending}
            onClick={() => change.mutate({ hidden: !entry.hidden })}
          >
            {entry.hidden ? 'Unhide' : 'Hide'}
          </button>
        </div>
      )}
    </li>
  );
}

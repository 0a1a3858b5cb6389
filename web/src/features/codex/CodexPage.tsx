import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import toast from 'react-hot-toast';
import { Link, useParams } from 'react-router-dom';
import { getCodex, mergeCodexEntries, type CodexKind } from '../../api/codex.ts';
import { errorDetail } from '../../api/http.ts';
import { listGroups, listGroupTranscripts } from '../../api/lists.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { findGroup, groupRouteId } from '../groups/session-data.ts';
import { CodexEntryCard } from './CodexEntryCard.tsx';
import { filterEntries, KIND_LABELS } from './codex-data.ts';
import { StoriesPanel } from './StoriesPanel.tsx';
import './codex.css';

const TABS: (CodexKind | 'all')[] = ['all', 'person', 'place', 'item', 'faction', 'thread'];

/**
 * /groups/{id}/codex: the campaign's people, places, items, factions and open threads, kept after
 * each session. Browse by kind, search, edit, mark secret, hide, merge; every mention opens its
 * session at its moment. The party (Who Is Who) is listed apart from the people met.
 */
export function CodexPage() {
  const { groupId = '' } = useParams();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<CodexKind | 'all'>('all');
  const [query, setQuery] = useState('');
  const [showHidden, setShowHidden] = useState(false);
  const [selected, setSelected] = useState<string[]>([]);
  const [into, setInto] = useState('');
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups, ...cacheTimes.groupList });
  // The names of the campaign's sessions, for its mentions: the group's sessions, not the library.
  const transcripts = useQuery({
    queryKey: queryKeys.groupTranscripts(groupId, 'all'),
    queryFn: () => listGroupTranscripts(groupId),
    ...cacheTimes.transcriptList,
  });
  const codex = useQuery({
    queryKey: ['codex', groupId, showHidden],
    queryFn: () => getCodex(groupId, showHidden),
    // Sessions are being read into it: it is asked again until they are.
    refetchInterval: (q) => (q.state.data?.updating ? 1500 : false),
  });
  const merge = useMutation({
    mutationFn: () => mergeCodexEntries(groupId, selected, into || selected[0]!),
    onSuccess: (entry) => {
      toast.success(`Merged into ${entry.name}`);
      setSelected([]);
      setInto('');
      void queryClient.invalidateQueries({ queryKey: ['codex', groupId] });
    },
    onError: (cause) => toast.error(errorDetail(cause, 'Failed to merge the entries')),
  });
  const sessionNames = useMemo(
    () => new Map((transcripts.data ?? []).map((t) => [t.id, t.name])),
    [transcripts.data],
  );
  const group = findGroup(groups.data, groupId);

  if (codex.isPending) {
    return (
      <div className="content-center">
        <Spinner label="Loading codex..." />
      </div>
    );
  }
  if (codex.isError) {
    return (
      <div className="page">
        <h1 className="page-title">Codex</h1>
        <p role="alert">{errorDetail(codex.error, 'Failed to load the codex')}</p>
      </div>
    );
  }
  const { entries, party, updating, sessions_read, sessions_total } = codex.data;
  const shown = filterEntries(entries, kind, query);
  const chosen = entries.filter((e) => selected.includes(e.id));
  const characters = [...new Set(party.map((p) => p.character))];
  return (
    <div className="page codex-page">
      <header className="page-header codex-header">
        <div>
          <p className="small">
            <Link to={`/groups/${group ? groupRouteId(group) : groupId}`}>← {group?.name ?? 'Campaign'}</Link>
          </p>
          <h1 className="page-title">Codex</h1>
          <p className="muted small" role="status">
            {updating
              ? `Reading sessions… ${sessions_read} of ${sessions_total} read`
              : `${sessions_total} ${sessions_total === 1 ? 'session' : 'sessions'} read · ${entries.length} entries`}
          </p>
        </div>
      </header>

      {party.length ? (
        <section className="card codex-party" aria-labelledby="codex-party-title">
          <h2 id="codex-party-title" className="card-title">
            The party
          </h2>
          <ul className="codex-party-list">
            {party.map((p) => (
              <li key={`${p.speaker}:${p.character}`}>
                <strong>{p.character}</strong> <span className="muted small">played by {p.speaker}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <StoriesPanel groupId={groupId} party={characters} />

      <div className="codex-tools">
        <div className="codex-tabs" role="tablist" aria-label="Kinds">
          {TABS.map((t) => {
            const count = t === 'all' ? entries.length : entries.filter((e) => e.kind === t).length;
            return (
              <button
                key={t}
                type="button"
                role="tab"
                aria-selected={kind === t}
                className={kind === t ? 'codex-tab is-active' : 'codex-tab'}
                onClick={() => setKind(t)}
              >
                {t === 'all' ? 'All' : KIND_LABELS[t].many} ({count})
              </button>
            );
          })}
        </div>
        <input
          type="search"
          className="text-input codex-search"
          placeholder="Search the codex..."
          aria-label="Search the codex"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <label className="small codex-hidden-toggle">
          <input type="checkbox" checked={showHidden} onChange={(e) => setShowHidden(e.target.checked)} />{' '}
          Show hidden
        </label>
      </div>

      {chosen.length >= 2 ? (
        <div className="card codex-merge" role="region" aria-label="Merge entries">
          <label htmlFor="codex-merge-into">Merge {chosen.length} entries into</label>
          <select
            id="codex-merge-into"
            className="text-input"
            value={into || chosen[0]!.id}
            onChange={(e) => setInto(e.target.value)}
          >
            {chosen.map((e) => (
              <option key={e.id} value={e.id}>
                {e.name}
              </option>
            ))}
          </select>
          <button
            type="button"
            className="button button-primary"
            disabled={merge.isPending}
            onClick={() => merge.mutate()}
          >
            {merge.isPending ? 'Merging...' : 'Merge'}
          </button>
        </div>
      ) : null}

      {shown.length === 0 ? (
        <p className="muted">
          {entries.length === 0
            ? updating
              ? 'The sessions are being read…'
              : 'Nothing in the codex yet: add sessions to the campaign.'
            : 'No entry matches.'}
        </p>
      ) : (
        <ul className="codex-list">
          {shown.map((entry) => (
            <CodexEntryCard
              key={entry.id}
              groupId={groupId}
              entry={entry}
              sessionNames={sessionNames}
              selected={selected.includes(entry.id)}
              onSelect={(on) =>
                setSelected((list) => (on ? [...list, entry.id] : list.filter((id) => id !== entry.id)))
              }
            />
          ))}
        </ul>
      )}
    </div>
  );
}

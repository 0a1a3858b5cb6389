import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, matchPath, useLocation, useNavigate } from 'react-router-dom';
import { listGroups, listTranscripts } from '../../api/lists.ts';
import type { GroupSummaryItem, TranscriptSummaryItem } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { ArrowLeftIcon, DocumentIcon, FolderIcon, RefreshIcon, SearchIcon } from '../../components/icons.tsx';
import { SessionBadges } from '../groups/SessionBadges.tsx';
import { searchPath, SidebarContentSearch } from '../search/SidebarContentSearch.tsx';
import {
  findGroup,
  formatSessionTimestamp,
  groupRouteId,
  matchesSearch,
  sessionsOfGroup,
  ungroupedSessions,
} from '../groups/session-data.ts';
import './transcript-browser.css';

/** Which group the current route is about: /groups/{id}..., ?group=, or an open grouped session. */
function useRouteSelection(transcripts: TranscriptSummaryItem[] | undefined) {
  const { pathname, search } = useLocation();
  const groupRoute = matchPath('/groups/:groupId/*', pathname);
  const sessionRoute = matchPath('/sessions/:sessionId/*', pathname);
  const openSessionId = sessionRoute?.params.sessionId;
  const openSession = openSessionId ? transcripts?.find((item) => item.id === openSessionId) : undefined;
  const queryGroup = new URLSearchParams(search).get('group') || undefined;
  return {
    routeKey: `${pathname}${search}`,
    groupId: groupRoute?.params.groupId ?? queryGroup ?? (openSession?.group_id || undefined),
    openGroupId: groupRoute?.params.groupId,
    openSessionId,
    openSession,
  };
}

function TranscriptItem({ session, current }: { session: TranscriptSummaryItem; current: boolean }) {
  const preview = session.preview?.trim();
  return (
    <li>
      <Link
        to={`/sessions/${session.id}`}
        className={current ? 'browser-item is-current' : 'browser-item'}
        aria-current={current ? 'page' : undefined}
      >
        <DocumentIcon />
        <span className="browser-item-text">
          <span className="browser-item-name">{session.name}</span>
          <SessionBadges session={session} />
          <span className="browser-item-meta">{formatSessionTimestamp(session.session_timestamp)}</span>
          <span className={preview ? 'browser-item-preview' : 'browser-item-preview is-empty'}>
            {preview || 'No preview available'}
          </span>
        </span>
      </Link>
    </li>
  );
}

/** Sessions a sidebar list renders at first, and how many more each "Show more" adds. */
const SESSIONS_SHOWN = 50;

/**
 * A list of sessions that renders the first SESSIONS_SHOWN (and at least up to the open one),
 * with a button for the next ones: a library of thousands of sessions costs the page the
 * nodes of a few dozen. A new search starts from the first ones again (the caller keys it).
 */
function SessionList({
  sessions,
  openSessionId,
  label,
}: {
  sessions: TranscriptSummaryItem[];
  openSessionId?: string;
  label?: string;
}) {
  const [limit, setLimit] = useState(SESSIONS_SHOWN);
  const open = openSessionId ? sessions.findIndex((session) => session.id === openSessionId) : -1;
  const shown = sessions.slice(0, Math.max(limit, open + 1));
  const left = sessions.length - shown.length;
  return (
    <>
      <ul className="browser-list" aria-label={label}>
        {shown.map((session) => (
          <TranscriptItem key={session.id} session={session} current={session.id === openSessionId} />
        ))}
      </ul>
      {left > 0 && (
        <button
          type="button"
          className="nav-link browser-more"
          onClick={() => setLimit(shown.length + SESSIONS_SHOWN)}
        >
          Show {Math.min(left, SESSIONS_SHOWN)} more ({left} not shown)
        </button>
      )}
    </>
  );
}

function GroupItem({ group, count, current }: { group: GroupSummaryItem; count: number; current: boolean }) {
  return (
    <li>
      <Link
        to={`/groups/${groupRouteId(group)}`}
        className={current ? 'browser-item is-current' : 'browser-item'}
        aria-current={current ? 'page' : undefined}
      >
        <FolderIcon />
        <span className="browser-item-text">
          <span className="browser-item-name">{group.name}</span>
          <span className="browser-item-meta">{count === 1 ? '1 session' : `${count} sessions`}</span>
        </span>
      </Link>
    </li>
  );
}

function SearchBox({
  value,
  onChange,
  placeholder,
  group,
}: {
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  group?: string;
}) {
  const navigate = useNavigate();
  return (
    <div className="browser-search">
      <SearchIcon />
      <input
        type="search"
        className="text-input browser-search-input"
        value={value}
        placeholder={placeholder}
        aria-label={placeholder.replace(/\.\.\.$/, '')}
        autoComplete="off"
        onChange={(event) => onChange(event.target.value)}
        // Enter opens every result of a search through what the sessions say.
        onKeyDown={(event) => {
          if (event.key === 'Enter' && value.trim()) void navigate(searchPath(value, group));
        }}
      />
    </div>
  );
}

function GroupsView({
  groups,
  transcripts,
  openGroupId,
  openSessionId,
}: {
  groups: GroupSummaryItem[];
  transcripts: TranscriptSummaryItem[];
  openGroupId?: string;
  openSessionId?: string;
}) {
  const [search, setSearch] = useState('');
  const groupsTitle = useId();
  const ungroupedTitle = useId();
  const shownGroups = groups.filter((group) => matchesSearch(search, group.name));
  const shownSessions = ungroupedSessions(transcripts, groups).filter((session) =>
    matchesSearch(search, session.name, session.preview),
  );
  const nothingAtAll = groups.length === 0 && ungroupedSessions(transcripts, groups).length === 0;

  return (
    <>
      <SearchBox value={search} onChange={setSearch} placeholder="Search groups or transcripts..." />
      {nothingAtAll ? (
        <p className="browser-empty">No groups or transcripts yet.</p>
      ) : shownGroups.length === 0 && shownSessions.length === 0 ? (
        <p className="browser-empty">No matching groups or transcripts found.</p>
      ) : (
        <>
          {shownGroups.length > 0 && (
            <section aria-labelledby={groupsTitle}>
              <h3 id={groupsTitle} className="browser-section-title">
                Groups
              </h3>
              <ul className="browser-list">
                {shownGroups.map((group) => (
                  <GroupItem
                    key={group.id}
                    group={group}
                    count={sessionsOfGroup(transcripts, group).length}
                    current={openGroupId === group.id || openGroupId === groupRouteId(group)}
                  />
                ))}
              </ul>
            </section>
          )}
          {shownSessions.length > 0 && (
            <section aria-labelledby={ungroupedTitle}>
              <h3 id={ungroupedTitle} className="browser-section-title">
                Ungrouped Transcripts
              </h3>
              <SessionList key={search} sessions={shownSessions} openSessionId={openSessionId} />
            </section>
          )}
        </>
      )}
      <SidebarContentSearch query={search} />
    </>
  );
}

function SessionsView({
  group,
  transcripts,
  openSessionId,
  onBackToGroups,
}: {
  group: GroupSummaryItem;
  transcripts: TranscriptSummaryItem[];
  openSessionId?: string;
  onBackToGroups: () => void;
}) {
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const titleId = useId();
  const sessions = sessionsOfGroup(transcripts, group);
  const shown = sessions.filter((session) => matchesSearch(search, session.name, session.preview));
  const transcriptOpen = Boolean(openSessionId && sessions.some((session) => session.id === openSessionId));

  return (
    <section aria-labelledby={titleId} className="browser-sessions">
      <div className="browser-group-head">
        <h3 id={titleId} className="browser-group-name">
          {group.name}
        </h3>
        <div className="browser-back-buttons">
          <button type="button" className="nav-link" onClick={onBackToGroups}>
            <ArrowLeftIcon />
            Back to Groups
          </button>
          {transcriptOpen && (
            <button
              type="button"
              className="nav-link"
              onClick={() => void navigate(`/groups/${groupRouteId(group)}`)}
            >
              <ArrowLeftIcon />
              Back to Group Dashboard
            </button>
          )}
        </div>
      </div>
      <SearchBox
        value={search}
        onChange={setSearch}
        placeholder="Search transcripts in group..."
        group={group.id}
      />
      {sessions.length === 0 ? (
        <p className="browser-empty">No transcripts in this group.</p>
      ) : shown.length === 0 ? (
        <p className="browser-empty">No matching transcripts found in this group.</p>
      ) : (
        <SessionList
          key={search}
          sessions={shown}
          openSessionId={openSessionId}
          label={`Transcripts in ${group.name}`}
        />
      )}
      <SidebarContentSearch query={search} group={group.id} />
    </section>
  );
}

/**
 * The sidebar's transcript browser. Its view follows the route (a group's page, a grouped
 * session or ?group= shows that group's sessions); 'Back to Groups' switches to the groups
 * view for the page the user is on, and the next navigation follows the route again.
 */
export function TranscriptBrowser() {
  const queryClient = useQueryClient();
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups, ...cacheTimes.groupList });
  const transcripts = useQuery({
    queryKey: queryKeys.transcripts,
    queryFn: listTranscripts,
    ...cacheTimes.transcriptList,
  });
  const selection = useRouteSelection(transcripts.data);
  const [groupsViewAt, setGroupsViewAt] = useState<string | null>(null);
  const selectedGroup = findGroup(groups.data, selection.groupId);
  const showSessions = Boolean(selectedGroup) && groupsViewAt !== selection.routeKey;

  const loading = groups.isPending || transcripts.isPending;
  const refreshing = groups.isFetching || transcripts.isFetching;
  const refresh = () =>
    Promise.all([
      queryClient.refetchQueries({ queryKey: queryKeys.groups, exact: true }),
      queryClient.refetchQueries({ queryKey: queryKeys.transcripts, exact: true }),
    ]);

  return (
    <div className="transcript-browser">
      <div className="browser-toolbar">
        <h2 className="browser-title">{showSessions ? 'Group Sessions' : 'Transcripts'}</h2>
        <button
          type="button"
          className={refreshing ? 'icon-button browser-refresh is-busy' : 'icon-button browser-refresh'}
          onClick={() => void refresh()}
          disabled={refreshing}
          aria-label="Refresh Transcripts"
          title="Refresh Transcripts"
        >
          <RefreshIcon />
        </button>
      </div>
      {loading ? (
        <div className="browser-loading">
          <Spinner label="Loading transcripts..." size="small" />
        </div>
      ) : showSessions && selectedGroup ? (
        <SessionsView
          key={selectedGroup.id}
          group={selectedGroup}
          transcripts={transcripts.data ?? []}
          openSessionId={selection.openSessionId}
          onBackToGroups={() => setGroupsViewAt(selection.routeKey)}
        />
      ) : (
        <GroupsView
          groups={groups.data ?? []}
          transcripts={transcripts.data ?? []}
          openGroupId={selection.openGroupId}
          openSessionId={selection.openSessionId}
        />
      )}
    </div>
  );
}

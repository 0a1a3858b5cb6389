import { useIsFetching, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useId, useMemo, useState } from 'react';
import { Link, matchPath, useLocation, useNavigate } from 'react-router-dom';
import { listGroups } from '../../api/lists.ts';
import { loadedSessions, sessionPagesRoot, useSessionPages } from '../../api/session-pages.ts';
import { getTranscript } from '../../api/transcripts.ts';
import type { GroupSummaryItem, TranscriptSummaryItem } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { ArrowLeftIcon, FolderIcon, RefreshIcon, SearchIcon } from '../../components/icons.tsx';
import { useDebounced } from '../../lib/use-debounced.ts';
import { searchPath, SidebarContentSearch } from '../search/SidebarContentSearch.tsx';
import { findGroup, groupRouteId, isActive, matchesSearch } from '../groups/session-data.ts';
import { PinnedSession, SessionList } from './SessionList.tsx';
import './transcript-browser.css';

/** Active sessions first (they are being recorded), the rest in the server's order. */
const activeFirst = (sessions: TranscriptSummaryItem[]) =>
  [...sessions].sort((a, b) => Number(isActive(b)) - Number(isActive(a)));

/** The sidebar's list of ungrouped sessions. */
const UNGROUPED = { ungrouped: true } as const;
/** Sessions per page of a sidebar list. */
const PAGE_SIZE = 50;
/** How long typing must pause before the search asks the server. */
const SEARCH_DELAY_MS = 250;

/**
 * Which group the current route is about: /groups/{id}..., ?group=, or an open session that
 * one of the groups holds (the groups list carries their session ids).
 */
function useRouteSelection(groups: GroupSummaryItem[] | undefined) {
  const { pathname, search } = useLocation();
  const groupRoute = matchPath('/groups/:groupId/*', pathname);
  const sessionRoute = matchPath('/sessions/:sessionId/*', pathname);
  const openSessionId = sessionRoute?.params.sessionId;
  const openGroup = openSessionId
    ? groups?.find((group) => group.session_ids?.includes(openSessionId))
    : undefined;
  const queryGroup = new URLSearchParams(search).get('group') || undefined;
  return {
    routeKey: `${pathname}${search}`,
    groupId: groupRoute?.params.groupId ?? queryGroup ?? openGroup?.id,
    openGroupId: groupRoute?.params.groupId,
    openSessionId,
  };
}

/** The open session as the session page loaded it (no request of its own), or undefined. */
function useOpenSession(openSessionId: string | undefined): TranscriptSummaryItem | undefined {
  const detail = useQuery({
    queryKey: queryKeys.transcript(openSessionId ?? ''),
    queryFn: () => getTranscript(openSessionId!),
    enabled: false,
  });
  const data = openSessionId ? detail.data : undefined;
  // A detail carries its content, not a preview: the list's is its first 100 characters.
  return useMemo(
    () =>
      data && {
        ...data,
        preview: data.content.length > 100 ? `${data.content.slice(0, 100)}...` : data.content,
      },
    [data],
  );
}

/**
 * One sidebar list of sessions, a page at a time: the server searches (after a pause in the
 * typing) and the loaded sessions are filtered at once by what is typed meanwhile. `settled`
 * says the shown sessions answer the current search, so "nothing found" may be said.
 */
function useSidebarSessions(filter: { group_id?: string; ungrouped?: boolean }, search: string) {
  const query = search.trim();
  const debounced = useDebounced(query, SEARCH_DELAY_MS, (value) => value === '');
  const pages = useSessionPages({ ...filter, q: debounced, limit: PAGE_SIZE }, { keepPrevious: true });
  const loaded = loadedSessions(pages.data);
  const sessions = filter.ungrouped ? activeFirst(loaded) : loaded;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  const loadMore = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  return {
    sessions: sessions.filter((session) => matchesSearch(query, session.name, session.preview)),
    settled: debounced === query && !pages.isPlaceholderData && !pages.isPending,
    pending: pages.isPending,
    hasMore: hasNextPage,
    loadingMore: isFetchingNextPage,
    loadMore,
  };
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
  openGroupId,
  openSessionId,
  openSession,
}: {
  groups: GroupSummaryItem[];
  openGroupId?: string;
  openSessionId?: string;
  openSession?: TranscriptSummaryItem;
}) {
  const [search, setSearch] = useState('');
  const groupsTitle = useId();
  const ungroupedTitle = useId();
  const ungrouped = useSidebarSessions(UNGROUPED, search);
  const shownGroups = groups.filter((group) => matchesSearch(search, group.name));
  const blank = search.trim() === '';
  // The open session, when it is ungrouped and not among the loaded pages.
  const pinned =
    blank && openSession && !openSession.group_id && !ungrouped.sessions.some((s) => s.id === openSession.id)
      ? openSession
      : undefined;
  const nothingAtAll = groups.length === 0 && blank && ungrouped.settled && ungrouped.sessions.length === 0;
  const nothingFound =
    !blank && ungrouped.settled && shownGroups.length === 0 && ungrouped.sessions.length === 0;

  return (
    <>
      <SearchBox value={search} onChange={setSearch} placeholder="Search groups or transcripts..." />
      {nothingAtAll ? (
        <p className="browser-empty">No groups or transcripts yet.</p>
      ) : nothingFound ? (
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
                    count={group.session_ids?.length ?? 0}
                    current={openGroupId === group.id || openGroupId === groupRouteId(group)}
                  />
                ))}
              </ul>
            </section>
          )}
          {(ungrouped.sessions.length > 0 || pinned) && (
            <section aria-labelledby={ungroupedTitle}>
              <h3 id={ungroupedTitle} className="browser-section-title">
                Ungrouped Transcripts
              </h3>
              {pinned && <PinnedSession session={pinned} />}
              <SessionList
                sessions={ungrouped.sessions}
                openSessionId={openSessionId}
                hasMore={ungrouped.hasMore}
                loadingMore={ungrouped.loadingMore}
                onLoadMore={ungrouped.loadMore}
              />
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
  openSessionId,
  openSession,
  onBackToGroups,
}: {
  group: GroupSummaryItem;
  openSessionId?: string;
  openSession?: TranscriptSummaryItem;
  onBackToGroups: () => void;
}) {
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const titleId = useId();
  const filter = useMemo(() => ({ group_id: group.id }), [group.id]);
  const sessions = useSidebarSessions(filter, search);
  const memberIds = group.session_ids ?? [];
  const transcriptOpen = Boolean(openSessionId && memberIds.includes(openSessionId));
  const blank = search.trim() === '';
  const pinned =
    blank && transcriptOpen && openSession && !sessions.sessions.some((s) => s.id === openSession.id)
      ? openSession
      : undefined;
  const empty = blank && sessions.settled && sessions.sessions.length === 0 && !pinned;

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
      {empty ? (
        <p className="browser-empty">No transcripts in this group.</p>
      ) : !blank && sessions.settled && sessions.sessions.length === 0 ? (
        <p className="browser-empty">No matching transcripts found in this group.</p>
      ) : (
        <>
          {pinned && <PinnedSession session={pinned} label={`Open transcript in ${group.name}`} />}
          <SessionList
            sessions={sessions.sessions}
            openSessionId={openSessionId}
            label={`Transcripts in ${group.name}`}
            hasMore={sessions.hasMore}
            loadingMore={sessions.loadingMore}
            onLoadMore={sessions.loadMore}
          />
        </>
      )}
      <SidebarContentSearch query={search} group={group.id} />
    </section>
  );
}

/**
 * The sidebar's transcript browser. Its view follows the route (a group's page, a grouped
 * session or ?group= shows that group's sessions); 'Back to Groups' switches to the groups
 * view for the page the user is on, and the next navigation follows the route again. Its
 * session lists are read a page at a time (see useSidebarSessions) and virtualised.
 */
export function TranscriptBrowser() {
  const queryClient = useQueryClient();
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups, ...cacheTimes.groupList });
  const selection = useRouteSelection(groups.data);
  const openSession = useOpenSession(selection.openSessionId);
  const [groupsViewAt, setGroupsViewAt] = useState<string | null>(null);
  const selectedGroup = findGroup(groups.data, selection.groupId ?? (openSession?.group_id || undefined));
  const showSessions = Boolean(selectedGroup) && groupsViewAt !== selection.routeKey;
  const pagesFetching = useIsFetching({ queryKey: sessionPagesRoot }) > 0;

  const loading = groups.isPending;
  const refreshing = groups.isFetching || pagesFetching;
  const refresh = () =>
    Promise.all([
      queryClient.refetchQueries({ queryKey: queryKeys.groups, exact: true }),
      queryClient.refetchQueries({ queryKey: sessionPagesRoot, type: 'active' }),
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
          openSessionId={selection.openSessionId}
          openSession={openSession}
          onBackToGroups={() => setGroupsViewAt(selection.routeKey)}
        />
      ) : (
        <GroupsView
          groups={groups.data ?? []}
          openGroupId={selection.openGroupId}
          openSessionId={selection.openSessionId}
          openSession={openSession}
        />
      )}
    </div>
  );
}

// The session list a page at a time (GET /transcripts?limit=&q=&group_id=&ungrouped=), for
// screens that show a library of any size: the sidebar, the dashboard and a campaign's page
// ask for one page and the next only as the user scrolls or searches, so 10,000 stored
// sessions cost the browser what 10 do.
import {
  useInfiniteQuery,
  type InfiniteData,
  type QueryClient,
  type UseInfiniteQueryResult,
} from '@tanstack/react-query';
import { cacheTimes, queryKeys } from '../app/query-client.ts';
import { apiRequestPage } from './http.ts';
import type { TranscriptSummaryItem } from './types.ts';

export interface SessionFilter {
  /** One group's sessions. */
  group_id?: string;
  /** Only sessions in no group. */
  ungrouped?: boolean;
  /** Sessions whose name or preview holds this text (any case); blank is no search. */
  q?: string;
  /** Sessions per page. */
  limit: number;
}

export interface SessionPage {
  items: TranscriptSummaryItem[];
  next: string | null;
}

/** Every paged list's key starts with this (and so with queryKeys.transcripts). */
export const sessionPagesRoot = [...queryKeys.transcripts, 'pages'] as const;
const sessionPagesKey = (filter: SessionFilter) => [...sessionPagesRoot, filter] as const;

/** One page of the filtered list; a failure is logged and gives an empty last page. */
async function listTranscriptsPage(filter: SessionFilter, next: string | null): Promise<SessionPage> {
  const q = filter.q?.trim();
  try {
    return await apiRequestPage<TranscriptSummaryItem>('/transcripts', next, {
      query: {
        limit: filter.limit,
        q: q || undefined,
        group_id: filter.group_id,
        ungrouped: filter.ungrouped ? 'true' : undefined,
      },
      errorMessage: 'Failed to load transcripts',
    });
  } catch (error) {
    console.warn('Could not load /transcripts', error);
    return { items: [], next: null };
  }
}

/** The loaded sessions of an infinite list, in order. */
export const loadedSessions = (data: InfiniteData<SessionPage> | undefined): TranscriptSummaryItem[] =>
  data ? data.pages.flatMap((page) => page.items) : [];

export function useSessionPages(
  filter: SessionFilter,
  options: {
    refetchInterval?: (sessions: TranscriptSummaryItem[]) => number | false;
    keepPrevious?: boolean;
  } = {},
): UseInfiniteQueryResult<InfiniteData<SessionPage>> {
  const { refetchInterval, keepPrevious } = options;
  return useInfiniteQuery<
    SessionPage,
    Error,
    InfiniteData<SessionPage>,
    ReturnType<typeof sessionPagesKey>,
    string | null
  >({
    queryKey: sessionPagesKey(filter),
    queryFn: ({ pageParam }) => listTranscriptsPage(filter, pageParam),
    initialPageParam: null,
    getNextPageParam: (last) => last.next,
    ...cacheTimes.transcriptList,
    refetchInterval: refetchInterval ? (query) => refetchInterval(loadedSessions(query.state.data)) : false,
    // A new search keeps the previous results on screen until its own arrive.
    placeholderData: keepPrevious ? (previous) => previous : undefined,
  });
}

/**
 * Puts a changed session into every loaded page that shows it. A session that changed
 * group or whose text changed (its preview is the server's) makes the paged lists ask
 * again, since which list it belongs to, or what it shows, is the server's to say.
 */
export function syncSessionInPages(
  queryClient: QueryClient,
  session: TranscriptSummaryItem,
  merge: (current: TranscriptSummaryItem) => TranscriptSummaryItem,
): void {
  let stale = false;
  for (const [key, data] of queryClient.getQueriesData<InfiniteData<SessionPage>>({
    queryKey: sessionPagesRoot,
  })) {
    const current = data?.pages.flatMap((page) => page.items).find((item) => item.id === session.id);
    if (!data || !current) continue;
    const merged = merge(current);
    if ((current.group_id ?? '') !== (merged.group_id ?? '')) stale = true;
    const textChanged =
      current.status !== merged.status || current.transcription_status !== merged.transcription_status;
    if (session.preview === undefined && textChanged) stale = true;
    queryClient.setQueryData<InfiniteData<SessionPage>>(key, {
      ...data,
      pages: data.pages.map((page) => ({
        ...page,
        items: page.items.map((item) => (item.id === session.id ? merged : item)),
      })),
    });
  }
  if (stale) void queryClient.invalidateQueries({ queryKey: sessionPagesRoot });
}

/** A deleted session leaves every loaded page. */
export function dropSessionFromPages(queryClient: QueryClient, id: string): void {
  queryClient.setQueriesData<InfiniteData<SessionPage>>({ queryKey: sessionPagesRoot }, (data) =>
    data
      ? {
          ...data,
          pages: data.pages.map((page) => ({ ...page, items: page.items.filter((item) => item.id !== id) })),
        }
      : data,
  );
}

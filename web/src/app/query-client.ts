import { QueryClient } from '@tanstack/react-query';

const MINUTE = 60 * 1000;

/**
 * Cache lifetimes per kind of data (fresh = staleTime, kept = gcTime), as the
 * specification sets them. Screens pass the matching entry to useQuery.
 */
export const cacheTimes = {
  /** The general default. */
  default: { staleTime: 5 * MINUTE, gcTime: 10 * MINUTE },
  /** Session notes: always stale, kept 5 minutes. */
  notes: { staleTime: 0, gcTime: 5 * MINUTE },
  transcriptList: { staleTime: 2 * MINUTE, gcTime: 10 * MINUTE },
  /** A session fetch; a forced fetch uses staleTime 0. */
  session: { staleTime: 10 * MINUTE, gcTime: 30 * MINUTE },
  transcriptDetail: { staleTime: 5 * MINUTE, gcTime: 15 * MINUTE },
  groupList: { staleTime: 3 * MINUTE, gcTime: 15 * MINUTE },
} as const;

export const queryKeys = {
  authProviders: ['auth', 'providers'] as const,
  appConfig: ['config'] as const,
  groups: ['groups'] as const,
  summaryVersions: (groupId: string) => ['groups', 'summary-versions', groupId] as const,
  /** The session list; every per-session key below starts with it, so one invalidation covers all. */
  transcripts: ['transcripts'] as const,
  transcript: (id: string) => ['transcripts', 'detail', id] as const,
  activeSessions: ['transcripts', 'active'] as const,
  /**
   * One group's sessions (GET /transcripts?group_id=): `latest` its newest up to the last ended
   * one, `all` every page of them. Under queryKeys.transcripts, so invalidating that refreshes it.
   */
  groupTranscripts: (groupId: string, part: 'latest' | 'all') =>
    ['transcripts', 'group', groupId, part] as const,
  notes: (id: string) => ['notes', id] as const,
  userStats: (start: string, end: string) => ['users', 'stats', start, end] as const,
};

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        ...cacheTimes.default,
        retry: 2,
        refetchOnWindowFocus: true,
        refetchOnReconnect: true,
        refetchOnMount: true,
      },
      mutations: {
        retry: 1,
      },
    },
  });
}

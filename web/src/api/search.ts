import type { SearchResults } from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { SearchHit, SearchResults } from '@chronicler/contracts';

/** GET /search: one page of hits in the user's sessions (of one group with `group`); errors are rethrown. */
export function searchSessions(
  q: string,
  options: { group?: string; limit?: number; after?: string; signal?: AbortSignal } = {},
): Promise<SearchResults> {
  return apiRequest<SearchResults>('/search', {
    query: { q, group: options.group, limit: options.limit, after: options.after },
    signal: options.signal,
    errorMessage: 'Search failed',
  });
}

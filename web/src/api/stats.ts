import { apiRequest } from './http.ts';
import type { UserStats } from './types.ts';

/** GET /users/stats for an inclusive date range (YYYY-MM-DD); errors are rethrown. */
export function getUserStats(start: string, end: string): Promise<UserStats> {
  return apiRequest<UserStats>('/users/stats', {
    query: { start, end },
    errorMessage: 'Failed to load stats',
  });
}

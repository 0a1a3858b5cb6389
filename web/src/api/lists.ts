import { apiRequest, apiRequestPage, listRequest } from './http.ts';
import type { GroupSummaryItem, TranscriptSummaryItem } from './types.ts';

/** GET /groups, every page; failures give an empty list. */
export function listGroups(): Promise<GroupSummaryItem[]> {
  return listRequest<GroupSummaryItem>('/groups', { errorMessage: 'Failed to load groups' });
}

/**
 * GET /transcripts?group_id=: one group's sessions, newest session first, page by page (a
 * campaign's sessions, never the whole library). Every page by default; with `enough`, it
 * stops after the first page for which `enough(loaded so far)` holds. Failures give an empty
 * list.
 */
export async function listGroupTranscripts(
  groupId: string,
  opts: { limit?: number; enough?: (loaded: readonly TranscriptSummaryItem[]) => boolean } = {},
): Promise<TranscriptSummaryItem[]> {
  const options = {
    query: { group_id: groupId, limit: opts.limit },
    errorMessage: 'Failed to load transcripts',
  };
  const items: TranscriptSummaryItem[] = [];
  const seen = new Set<string>();
  try {
    let next: string | null = null;
    do {
      if (next !== null) seen.add(next);
      const page: { items: TranscriptSummaryItem[]; next: string | null } =
        await apiRequestPage<TranscriptSummaryItem>('/transcripts', next, options);
      items.push(...page.items);
      if (opts.enough?.(items)) break;
      next = page.next !== null && !seen.has(page.next) ? page.next : null;
    } while (next !== null);
    return items;
  } catch (error) {
    console.warn(`Could not load the sessions of group ${groupId}`, error);
    return [];
  }
}

/**
 * Where a user goes right after signing in: /welcome when they have neither groups nor
 * transcripts yet, / otherwise, and / when the lookup itself fails (so this one does not
 * use the error-swallowing list helpers, which would make a failure look like "empty").
 */
export async function landingPathAfterLogin(): Promise<'/' | '/welcome'> {
  try {
    const [groups, transcripts] = await Promise.all([
      // One item of each is enough to tell "empty" apart.
      apiRequest<unknown>('/groups', { query: { limit: 1 }, errorMessage: 'Failed to load groups' }),
      apiRequest<unknown>('/transcripts', {
        query: { limit: 1 },
        errorMessage: 'Failed to load transcripts',
      }),
    ]);
    const isEmpty = (value: unknown) => Array.isArray(value) && value.length === 0;
    return isEmpty(groups) && isEmpty(transcripts) ? '/welcome' : '/';
  } catch (error) {
    console.warn('Could not look up groups and transcripts after sign-in', error);
    return '/';
  }
}

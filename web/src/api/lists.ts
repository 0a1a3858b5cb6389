import { apiRequest, listRequest } from './http.ts';
import type { GroupSummaryItem, TranscriptSummaryItem } from './types.ts';

/** GET /groups, every page; failures give an empty list. */
export function listGroups(): Promise<GroupSummaryItem[]> {
  return listRequest<GroupSummaryItem>('/groups', { errorMessage: 'Failed to load groups' });
}

/** GET /transcripts, every page; failures give an empty list. */
export function listTranscripts(): Promise<TranscriptSummaryItem[]> {
  return listRequest<TranscriptSummaryItem>('/transcripts', { errorMessage: 'Failed to load transcripts' });
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

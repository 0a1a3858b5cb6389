import type { GroupSpotlight, SessionSpotlight, SessionUsage, SpeakerSpotlight } from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { GroupSpotlight, SessionSpotlight, SessionUsage, SpeakerSpotlight };

/** GET /transcripts/{id}/spotlight: who had the spotlight in one session. */
export function getSessionSpotlight(id: string): Promise<SessionSpotlight> {
  return apiRequest<SessionSpotlight>(`/transcripts/${encodeURIComponent(id)}/spotlight`, {
    errorMessage: 'Failed to load the spotlight',
  });
}

/** GET /groups/{id}/spotlight: each player across the campaign's sessions. */
export function getGroupSpotlight(id: string): Promise<GroupSpotlight> {
  return apiRequest<GroupSpotlight>(`/groups/${encodeURIComponent(id)}/spotlight`, {
    errorMessage: 'Failed to load the campaign spotlight',
  });
}

/** GET /transcripts/{id}/usage: what the session cost (speech and AI, at the configured prices). */
export function getSessionUsage(id: string): Promise<SessionUsage> {
  return apiRequest<SessionUsage>(`/transcripts/${encodeURIComponent(id)}/usage`, {
    errorMessage: 'Failed to load what the session cost',
  });
}

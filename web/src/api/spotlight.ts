import type { GroupSpotlight, SessionSpotlight, SpeakerSpotlight } from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { GroupSpotlight, SessionSpotlight, SpeakerSpotlight };

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

import type { CharacterLink, GroupCharacters } from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { CharacterLink, GroupCharacters };

/**
 * GET /groups/{id}/characters: who is who in the campaign (the user's map and suggestions
 * inferred from the group's latest sessions); errors are rethrown.
 */
export function getGroupCharacters(id: string): Promise<GroupCharacters> {
  return apiRequest<GroupCharacters>(`/groups/${encodeURIComponent(id)}/characters`, {
    errorMessage: 'Failed to load who is who',
  });
}

/** PUT /groups/{id}/characters: replaces the user's map; answers it as stored. */
export function putGroupCharacters(id: string, links: CharacterLink[]): Promise<GroupCharacters> {
  return apiRequest<GroupCharacters>(`/groups/${encodeURIComponent(id)}/characters`, {
    method: 'PUT',
    body: { links },
    errorMessage: 'Failed to save who is who',
  });
}

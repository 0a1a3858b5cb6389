import { apiRequest } from './http.ts';
import type { GroupSummaryItem, OkResponse } from './types.ts';

/** POST /groups; errors are rethrown. */
export function createGroup(name: string): Promise<GroupSummaryItem> {
  return apiRequest<GroupSummaryItem>('/groups', {
    method: 'POST',
    body: { name },
    errorMessage: 'Failed to create group',
  });
}

/** DELETE /groups/{id}; the server ungroups the group's sessions. Errors are rethrown. */
export function deleteGroup(id: string): Promise<OkResponse> {
  return apiRequest<OkResponse>(`/groups/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    errorMessage: 'Failed to delete group',
  });
}

/** PUT /groups/{id}: the name or the campaign summary (what is not sent stays); errors are rethrown. */
export function updateGroup(
  id: string,
  changes: { name?: string; summary?: string },
): Promise<GroupSummaryItem> {
  return apiRequest<GroupSummaryItem>(`/groups/${encodeURIComponent(id)}`, {
    method: 'PUT',
    body: changes,
    errorMessage: 'Failed to update group',
  });
}

/** A group's campaign vocabulary: the user's own terms and the names learned from its sessions. */
export interface GroupVocabulary {
  terms: string[];
  learned: string[];
}

/** GET /groups/{id}/vocabulary; errors are rethrown. */
export function getGroupVocabulary(id: string): Promise<GroupVocabulary> {
  return apiRequest<GroupVocabulary>(`/groups/${encodeURIComponent(id)}/vocabulary`, {
    errorMessage: 'Failed to load the campaign vocabulary',
  });
}

/** PUT /groups/{id}/vocabulary: replaces the user's terms; answers the vocabulary as stored. */
export function putGroupVocabulary(id: string, terms: string[]): Promise<GroupVocabulary> {
  return apiRequest<GroupVocabulary>(`/groups/${encodeURIComponent(id)}/vocabulary`, {
    method: 'PUT',
    body: { terms },
    errorMessage: 'Failed to save the campaign vocabulary',
  });
}

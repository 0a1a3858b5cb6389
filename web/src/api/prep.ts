import type { GroupPrep, PrepItem } from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { GroupPrep, PrepItem };

const base = (groupId: string) => `/groups/${encodeURIComponent(groupId)}/prep`;

/** GET /groups/{id}/prep: the campaign's prepared items with their state and moments. */
export function getPrep(groupId: string): Promise<GroupPrep> {
  return apiRequest<GroupPrep>(base(groupId), { errorMessage: 'Failed to load the prep checklist' });
}

/** POST /groups/{id}/prep: a new item of the next session's plan. */
export function createPrepItem(groupId: string, text: string): Promise<PrepItem> {
  return apiRequest<PrepItem>(base(groupId), {
    method: 'POST',
    body: { text },
    errorMessage: 'Failed to add the prep item',
  });
}

/** PATCH /groups/{id}/prep/{itemId}: a new text, a tick or an untick. */
export function updatePrepItem(
  groupId: string,
  itemId: string,
  change: { text?: string; done?: boolean },
): Promise<PrepItem> {
  return apiRequest<PrepItem>(`${base(groupId)}/${encodeURIComponent(itemId)}`, {
    method: 'PATCH',
    body: change,
    errorMessage: 'Failed to save the prep item',
  });
}

/** DELETE /groups/{id}/prep/{itemId}. */
export function deletePrepItem(groupId: string, itemId: string): Promise<{ ok: true }> {
  return apiRequest<{ ok: true }>(`${base(groupId)}/${encodeURIComponent(itemId)}`, {
    method: 'DELETE',
    errorMessage: 'Failed to remove the prep item',
  });
}

/** POST /groups/{id}/prep/carry: after a session, what did not come up goes into the next plan. */
export function carryPrep(groupId: string, transcriptId: string): Promise<GroupPrep> {
  return apiRequest<GroupPrep>(`${base(groupId)}/carry`, {
    method: 'POST',
    body: { transcript_id: transcriptId },
    errorMessage: 'Failed to carry the plan forward',
  });
}

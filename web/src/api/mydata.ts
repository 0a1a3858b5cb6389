import type { RecordedSession } from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { RecordedSession } from '@chronicler/contracts';

/** GET /me/recorded: the sessions of others in which the signed-in user's voice was recorded. */
export function getRecordedData(): Promise<RecordedSession[]> {
  return apiRequest<RecordedSession[]>('/me/recorded', { errorMessage: 'Failed to load your recorded data' });
}

/** DELETE /me/recorded/{id}: the user's lines there removed and their track deleted; errors are rethrown. */
export function deleteRecordedData(id: string): Promise<{ lines: number; tracks: number }> {
  return apiRequest<{ lines: number; tracks: number }>(`/me/recorded/${encodeURIComponent(id)}`, {
    method: 'DELETE',
    errorMessage: 'Failed to delete your recorded data',
  });
}

import { apiRequest } from './http.ts';
import type { SessionNotes } from './types.ts';

/** GET /transcripts/{id}/notes: '' when the session has none yet; errors are rethrown. */
export function getNotes(sessionId: string): Promise<SessionNotes> {
  return apiRequest<SessionNotes>(`/transcripts/${encodeURIComponent(sessionId)}/notes`, {
    errorMessage: 'Failed to load notes',
  });
}

/** PUT /transcripts/{id}/notes: the answer replaces the cached notes. */
export function putNotes(sessionId: string, content: string): Promise<SessionNotes> {
  return apiRequest<SessionNotes>(`/transcripts/${encodeURIComponent(sessionId)}/notes`, {
    method: 'PUT',
    body: { content },
    errorMessage: 'Failed to save notes',
  });
}

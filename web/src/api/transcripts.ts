import { apiRequest } from './http.ts';
import type { TranscriptDetail } from './types.ts';

/** GET /transcripts/{id}: one session with its transcript text; errors are rethrown. */
export function getTranscript(id: string): Promise<TranscriptDetail> {
  return apiRequest<TranscriptDetail>(`/transcripts/${encodeURIComponent(id)}`, {
    errorMessage: 'Failed to load session details.',
  });
}

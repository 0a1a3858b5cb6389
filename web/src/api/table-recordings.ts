import type { TranscriptListItem } from '@chronicler/contracts';
import { API_BASE, ApiError, apiRequest, authHeaders } from './http.ts';

/**
 * POST /api/table-recordings: a recording begins. `live`: a streaming provider transcribes it
 * as it goes (the session, whose id is the recording's, has its lines live); otherwise the
 * session is made when it is finished.
 */
export function startTableRecording(body: {
  name: string;
  session_date: string;
  group_id: string | null;
  mime_type: string;
}): Promise<{ id: string; chunk_max_bytes: number; live: boolean }> {
  return apiRequest('/table-recordings', {
    method: 'POST',
    body,
    errorMessage: 'Could not start the recording',
  });
}

/**
 * POST /api/table-recordings/{id}/chunks?part=&seq=: one chunk, acknowledged once stored (a
 * chunk sent again is stored once). Throws an ApiError with the status for a refusal, a
 * TypeError when the network is gone.
 */
export async function sendChunk(id: string, part: number, seq: number, blob: Blob): Promise<void> {
  const url = `${API_BASE}/table-recordings/${encodeURIComponent(id)}/chunks?part=${part}&seq=${seq}`;
  const res = await fetch(url, {
    method: 'POST',
    body: blob,
    credentials: 'include',
    headers: { ...authHeaders(), 'content-type': blob.type.split(';')[0] || 'audio/webm' },
  });
  if (res.ok) return;
  let detail: string | undefined;
  try {
    detail = ((await res.json()) as { detail?: string }).detail;
  } catch {
    // Not JSON.
  }
  throw new ApiError(
    res.status === 401 ? 'unauthorized' : 'error',
    detail ?? `Could not send the recording (${res.status})`,
    res.status,
    detail,
  );
}

/** POST /api/table-recordings/{id}/finish: the chunks become the session's recording. */
export function finishTableRecording(id: string, chunkCounts: number[]): Promise<TranscriptListItem> {
  return apiRequest(`/table-recordings/${encodeURIComponent(id)}/finish`, {
    method: 'POST',
    body: { chunk_counts: chunkCounts },
    errorMessage: 'Could not save the recording',
  });
}

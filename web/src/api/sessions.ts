// Creating and editing sessions: the manual form (JSON), an uploaded recording (multipart
// through XMLHttpRequest, because fetch cannot report upload progress) and the update.
import { API_BASE, ApiError, apiRequest, authHeaders } from './http.ts';
import type { TranscriptSummaryItem } from './types.ts';

/** An upload of up to 500 MB may take a while on a slow line (the client waits up to 300 s). */
const AUDIO_UPLOAD_TIMEOUT_MS = 300_000;

/** POST /transcripts/manual. Empty summary and transcript are left out. */
export interface ManualSessionPayload {
  name: string;
  session_date: string;
  summary?: string;
  transcript?: string;
  group_id?: string;
}

/** POST /transcripts/manual-audio (multipart). */
export interface AudioSessionPayload {
  name: string;
  session_date: string;
  summary?: string;
  group_id?: string;
  audio: File;
}

/** PUT /transcripts/{id}: name and summary always; the date and transcript only when changed. */
export interface SessionUpdatePayload {
  name: string;
  summary: string;
  session_date?: string;
  transcript?: string;
}

export function createManualSession(payload: ManualSessionPayload): Promise<TranscriptSummaryItem> {
  return apiRequest<TranscriptSummaryItem>('/transcripts/manual', {
    method: 'POST',
    body: payload,
    errorMessage: 'Failed to create session',
  });
}

export function updateSession(id: string, payload: SessionUpdatePayload): Promise<TranscriptSummaryItem> {
  return apiRequest<TranscriptSummaryItem>(`/transcripts/${encodeURIComponent(id)}`, {
    method: 'PUT',
    body: payload,
    errorMessage: 'Failed to update session',
  });
}

function detailOf(xhr: XMLHttpRequest): string | undefined {
  try {
    const body: unknown = JSON.parse(xhr.responseText);
    if (body && typeof body === 'object' && 'detail' in body) {
      const detail = (body as { detail: unknown }).detail;
      if (typeof detail === 'string') return detail;
    }
  } catch {
    // Not JSON: no detail to show.
  }
  return undefined;
}

/**
 * Uploads a recording as a new session. `onProgress` gets whole percents of the bytes sent.
 * The text fields go before the file so that the server, which streams the upload, has
 * them before the audio arrives.
 */
export function createAudioSession(
  payload: AudioSessionPayload,
  onProgress: (percent: number) => void,
  signal?: AbortSignal,
): Promise<TranscriptSummaryItem> {
  const errorMessage = 'Failed to create audio session';
  const form = new FormData();
  form.append('name', payload.name);
  form.append('session_date', payload.session_date);
  if (payload.group_id) form.append('group_id', payload.group_id);
  if (payload.summary) form.append('summary', payload.summary);
  form.append('audio', payload.audio, payload.audio.name);

  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${API_BASE}/transcripts/manual-audio`);
    xhr.timeout = AUDIO_UPLOAD_TIMEOUT_MS;
    xhr.withCredentials = true;
    xhr.setRequestHeader('Accept', 'application/json');
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);

    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) {
        onProgress(Math.min(100, Math.round((event.loaded / event.total) * 100)));
      }
    };
    xhr.onload = () => {
      if (xhr.status === 401) {
        console.error('Authentication error: POST /transcripts/manual-audio answered 401');
        reject(new ApiError('unauthorized', 'Authentication required', 401, detailOf(xhr)));
        return;
      }
      if (xhr.status < 200 || xhr.status >= 300) {
        reject(new ApiError('error', errorMessage, xhr.status, detailOf(xhr)));
        return;
      }
      try {
        resolve(JSON.parse(xhr.responseText) as TranscriptSummaryItem);
      } catch {
        reject(new ApiError('error', errorMessage, xhr.status));
      }
    };
    xhr.onerror = () => reject(new ApiError('error', errorMessage));
    xhr.ontimeout = () => reject(new ApiError('error', errorMessage));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

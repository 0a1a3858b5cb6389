import type {
  EditLineBody,
  EditLineResult,
  LineEdits,
  PutSpeakersBody,
  SessionLine,
  SessionSpeakers,
} from '@chronicler/contracts';
import { readItem, STORAGE_KEYS } from '../lib/storage.ts';
import { API_BASE, ApiError, apiRequest, authHeaders } from './http.ts';
import { refreshAccess } from './refresh.ts';

export type { EditLineResult, LineEdits, SessionLine, SessionSpeakers };

const path = (id: string, rest: string) => `/transcripts/${encodeURIComponent(id)}${rest}`;

/** PATCH /transcripts/{id}/lines/{line}: a line's new text (or `revert`); errors are rethrown. */
export function editLine(id: string, line: number, body: EditLineBody): Promise<EditLineResult> {
  return apiRequest<EditLineResult>(path(id, `/lines/${line}`), {
    method: 'PATCH',
    body,
    errorMessage: 'Failed to save the line',
  });
}

/** GET /transcripts/{id}/lines/edits: the session's edited lines with their originals. */
export function getLineEdits(id: string): Promise<LineEdits> {
  return apiRequest<LineEdits>(path(id, '/lines/edits'), { errorMessage: 'Failed to load line edits' });
}

/** GET /transcripts/{id}/speakers: the session's speaker labels, their names and suggestions. */
export function getSpeakers(id: string): Promise<SessionSpeakers> {
  return apiRequest<SessionSpeakers>(path(id, '/speakers'), { errorMessage: 'Failed to load speakers' });
}

/** PUT /transcripts/{id}/speakers: the whole map of names; errors are rethrown. */
export function putSpeakers(id: string, speakers: PutSpeakersBody['speakers']): Promise<SessionSpeakers> {
  return apiRequest<SessionSpeakers>(path(id, '/speakers'), {
    method: 'PUT',
    body: { speakers },
    errorMessage: 'Failed to save speaker names',
  });
}

/** A downloaded export: how many lines a subtitle file left out for want of a time. */
export interface Downloaded {
  filename: string;
  untimedLines: number;
}

function filenameOf(header: string | null, fallback: string): string {
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header ?? '');
  if (star) return decodeURIComponent(star[1]!);
  const plain = /filename="?([^";]+)"?/i.exec(header ?? '');
  return plain ? plain[1]! : fallback;
}

/**
 * GET an export (`/transcripts/{id}/export?format=md`, `/groups/{id}/export?format=zip`) and
 * hand it to the browser as a download under the server's file name.
 */
export async function downloadExport(exportPath: string, fallbackName: string): Promise<Downloaded> {
  const get = () => fetch(`${API_BASE}${exportPath}`, { headers: authHeaders(), credentials: 'include' });
  const sent = readItem(STORAGE_KEYS.token);
  let res = await get();
  if (res.status === 401 && (await refreshAccess(sent))) res = await get();
  if (!res.ok) throw new ApiError('error', 'Export failed', res.status);
  const filename = filenameOf(res.headers.get('content-disposition'), fallbackName);
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked later: some browsers read the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { filename, untimedLines: Number(res.headers.get('x-untimed-lines') ?? 0) };
}

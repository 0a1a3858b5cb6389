import type { QueryClient } from '@tanstack/react-query';
import { queryKeys } from '../app/query-client.ts';
import { apiRequest } from './http.ts';
import { dropSessionFromPages, syncSessionInPages } from './session-pages.ts';
import type { GroupSummaryItem, OkResponse, TranscriptDetail, TranscriptSummaryItem } from './types.ts';

const path = (id: string, rest = '') => `/transcripts/${encodeURIComponent(id)}${rest}`;

/** GET /transcripts/{id}: one session with its transcript text; errors are rethrown. */
export function getTranscript(id: string): Promise<TranscriptDetail> {
  return apiRequest<TranscriptDetail>(path(id), {
    errorMessage: 'Failed to load session details.',
  });
}

/** POST /transcripts/{id}/retry-transcription: a failed transcription queued again; errors are rethrown. */
export function retryTranscription(id: string): Promise<TranscriptSummaryItem> {
  return apiRequest<TranscriptSummaryItem>(path(id, '/retry-transcription'), {
    method: 'POST',
    errorMessage: 'Failed to retry the transcription',
  });
}

/** POST /transcripts/{id}/transcribe ("Transcribe now"): a kept recording queued; errors are rethrown. */
export function transcribeNow(id: string): Promise<TranscriptSummaryItem> {
  return apiRequest<TranscriptSummaryItem>(path(id, '/transcribe'), {
    method: 'POST',
    errorMessage: 'Failed to start the transcription',
  });
}

/** PUT /transcripts/{id}/rename; errors are rethrown. */
export function renameTranscript(id: string, name: string): Promise<TranscriptSummaryItem> {
  return apiRequest<TranscriptSummaryItem>(path(id, '/rename'), {
    method: 'PUT',
    body: { name },
    errorMessage: 'Failed to rename transcript',
  });
}

/** PUT /transcripts/{id}/summary; errors are rethrown. */
export function updateTranscriptSummary(id: string, summary: string): Promise<TranscriptSummaryItem> {
  return apiRequest<TranscriptSummaryItem>(path(id, '/summary'), {
    method: 'PUT',
    body: { summary },
    errorMessage: 'Failed to update summary',
  });
}

/** DELETE /transcripts/{id}; the server refuses active sessions. Errors are rethrown. */
export function deleteTranscript(id: string): Promise<OkResponse> {
  return apiRequest<OkResponse>(path(id), { method: 'DELETE', errorMessage: 'Failed to delete session' });
}

/** PUT /transcripts/{id}/assign-group; errors are rethrown. */
export function assignTranscriptGroup(id: string, groupId: string): Promise<TranscriptSummaryItem> {
  return apiRequest<TranscriptSummaryItem>(path(id, '/assign-group'), {
    method: 'PUT',
    body: { group_id: groupId },
    errorMessage: 'Failed to assign session to group',
  });
}

/** DELETE /transcripts/{id}/remove-group; errors are rethrown. */
export function removeTranscriptGroup(id: string): Promise<TranscriptSummaryItem> {
  return apiRequest<TranscriptSummaryItem>(path(id, '/remove-group'), {
    method: 'DELETE',
    errorMessage: 'Failed to remove session from group',
  });
}

const groupKey = (group: GroupSummaryItem) => group.group_id || group.id;

/** Fields a list item and a detail share, compared to tell whether a cached copy is stale. */
const SHARED_FIELDS = [
  'name',
  'session_timestamp',
  'last_activity',
  'status',
  'group_id',
  'summary',
  'preview',
  'transcription_status',
  'transcription_error',
  'audio_seconds',
  'summary_status',
] as const satisfies readonly (keyof TranscriptSummaryItem)[];

function differs(a: TranscriptSummaryItem, b: TranscriptSummaryItem): boolean {
  return SHARED_FIELDS.some((field) => b[field] !== undefined && a[field] !== b[field]);
}

/** A cached list item with a session's changes; a list item never carries content. */
function listItemOf(current: TranscriptSummaryItem, session: TranscriptSummaryItem): TranscriptSummaryItem {
  const merged: TranscriptSummaryItem & {
    content?: string;
    transcription_retryable?: boolean;
    summary_outdated?: boolean;
  } = { ...current, ...session };
  // A detail passed in here must not bloat the list.
  delete merged.content;
  delete merged.transcription_retryable;
  delete merged.summary_outdated;
  return merged;
}

/**
 * Puts a changed session into every cache that shows it (the session list, its detail,
 * the groups' session_ids), so the sidebar and dashboards show the change at once. A
 * detail keeps its content: list-shaped answers (rename, assign) carry none.
 */
export function syncSessionInCaches(queryClient: QueryClient, session: TranscriptSummaryItem): void {
  syncSessionInPages(queryClient, session, (current) =>
    differs(current, session) ? listItemOf(current, session) : current,
  );
  const list = queryClient.getQueryData<TranscriptSummaryItem[]>(queryKeys.transcripts);
  const current = list?.find((item) => item.id === session.id);
  if (list && !current) {
    // A session the cached list does not know yet: the server knows where it belongs in the order.
    void queryClient.invalidateQueries({ queryKey: queryKeys.transcripts, exact: true });
  } else if (list && current && differs(current, session)) {
    const merged = listItemOf(current, session);
    queryClient.setQueryData<TranscriptSummaryItem[]>(
      queryKeys.transcripts,
      list.map((item) => (item.id === session.id ? merged : item)),
    );
    // A finished transcription or an ended live session has new text; a detail carries no
    // preview, so the list is read again for the server's (the sidebar kept "No preview").
    const textChanged =
      current.transcription_status !== merged.transcription_status || current.status !== merged.status;
    if (session.preview === undefined && textChanged)
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcripts, exact: true });
  }
  queryClient.setQueryData<TranscriptDetail>(queryKeys.transcript(session.id), (old) =>
    old && differs(old, session) ? { ...old, ...session, content: old.content } : old,
  );
  const groupId = session.group_id ?? '';
  queryClient.setQueryData<GroupSummaryItem[]>(queryKeys.groups, (old) => {
    if (!old) return old;
    let changed = false;
    const next = old.map((group) => {
      const ids = group.session_ids ?? [];
      const member = ids.includes(session.id);
      const belongs = groupId !== '' && groupKey(group) === groupId;
      if (member === belongs) return group;
      changed = true;
      return {
        ...group,
        session_ids: belongs ? [...ids, session.id] : ids.filter((id) => id !== session.id),
      };
    });
    return changed ? next : old;
  });
}

/** A deleted session leaves the list, its groups and its own cache entries. */
export function dropSessionFromCaches(queryClient: QueryClient, id: string): void {
  dropSessionFromPages(queryClient, id);
  queryClient.setQueryData<TranscriptSummaryItem[]>(queryKeys.transcripts, (old) =>
    old?.filter((item) => item.id !== id),
  );
  queryClient.setQueryData<GroupSummaryItem[]>(queryKeys.groups, (old) =>
    old?.map((group) =>
      group.session_ids?.includes(id)
        ? { ...group, session_ids: group.session_ids.filter((sessionId) => sessionId !== id) }
        : group,
    ),
  );
  queryClient.removeQueries({ queryKey: queryKeys.transcript(id), exact: true });
  queryClient.removeQueries({ queryKey: queryKeys.notes(id), exact: true });
}

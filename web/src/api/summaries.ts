import { apiRequest } from './http.ts';
import type { GroupSummaryCheck, GroupSummaryItem } from './types.ts';

/** Generation waits on the AI model; the server allows it two minutes. */
const GENERATION_TIMEOUT_MS = 150_000;

/** POST /transcripts/{id}/generate-summary; errors are rethrown. */
export function generateSessionSummary(id: string): Promise<{ id: string; summary?: string | null }> {
  return apiRequest<{ id: string; summary?: string | null }>(
    `/transcripts/${encodeURIComponent(id)}/generate-summary`,
    { method: 'POST', timeoutMs: GENERATION_TIMEOUT_MS, errorMessage: 'Failed to generate summary' },
  );
}

/** POST /groups/{id}/summary: a forced campaign summary (admins); errors are rethrown. */
export function generateGroupSummary(id: string): Promise<GroupSummaryItem> {
  return apiRequest<GroupSummaryItem>(`/groups/${encodeURIComponent(id)}/summary`, {
    method: 'POST',
    timeoutMs: GENERATION_TIMEOUT_MS,
    errorMessage: 'Failed to generate campaign summary',
  });
}

/** POST /groups/{id}/check-summary: generates when the sessions' summaries changed. */
export function checkGroupSummary(id: string): Promise<GroupSummaryCheck> {
  return apiRequest<GroupSummaryCheck>(`/groups/${encodeURIComponent(id)}/check-summary`, {
    method: 'POST',
    timeoutMs: GENERATION_TIMEOUT_MS,
    errorMessage: 'Failed to check campaign summary',
  });
}

/** GET /admin/transcripts/{id}/llm-summary: the raw AI summary (admins). */
export function getLlmSummary(id: string): Promise<{ id: string; llm_summary: string }> {
  return apiRequest<{ id: string; llm_summary: string }>(
    `/admin/transcripts/${encodeURIComponent(id)}/llm-summary`,
    { errorMessage: 'Failed to fetch LLM summary' },
  );
}

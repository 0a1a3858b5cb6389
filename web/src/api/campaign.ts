import type { AskAnswer, SummaryVersions } from '@chronicler/contracts';
import { apiRequest } from './http.ts';
import type { GroupSummaryItem } from './types.ts';

/** A model's answer across a campaign may take a while; the server waits up to ten minutes. */
const ASK_TIMEOUT_MS = 10 * 60_000;

/** POST /groups/{id}/ask: a question across every session of the campaign; errors are rethrown. */
export function askCampaign(groupId: string, question: string): Promise<AskAnswer> {
  return apiRequest<AskAnswer>(`/groups/${encodeURIComponent(groupId)}/ask`, {
    method: 'POST',
    body: { question },
    timeoutMs: ASK_TIMEOUT_MS,
    errorMessage: 'Failed to ask the campaign',
  });
}

/** GET /groups/{id}/summary-versions: the campaign summaries replaced so far, newest first. */
export function listSummaryVersions(groupId: string): Promise<SummaryVersions> {
  return apiRequest<SummaryVersions>(`/groups/${encodeURIComponent(groupId)}/summary-versions`, {
    errorMessage: 'Failed to load summary versions',
  });
}

/** POST /groups/{id}/summary-versions/{versionId}/restore: the version is the summary again. */
export function restoreSummaryVersion(groupId: string, versionId: string): Promise<GroupSummaryItem> {
  return apiRequest<GroupSummaryItem>(
    `/groups/${encodeURIComponent(groupId)}/summary-versions/${encodeURIComponent(versionId)}/restore`,
    { method: 'POST', errorMessage: 'Failed to restore the summary' },
  );
}

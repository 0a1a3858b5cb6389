import type { CreatedShare, Share, ShareKind, SharedTranscript, SharedView } from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { CreatedShare, Share, ShareKind, SharedTranscript, SharedView } from '@chronicler/contracts';

const collection = (kind: ShareKind, id: string) =>
  kind === 'character-recap' || kind === 'previously'
    ? `/groups/${encodeURIComponent(id)}/${kind}/shares`
    : `/${kind === 'group' ? 'groups' : 'transcripts'}/${encodeURIComponent(id)}/shares`;

/** GET .../shares: the owner's links that still work; errors are rethrown. */
export function listShares(kind: ShareKind, id: string): Promise<Share[]> {
  return apiRequest<Share[]>(collection(kind, id), { errorMessage: 'Failed to load the share links' });
}

/**
 * POST .../shares: a new read-only link (its token is shown this once); `subject` names the
 * character of a character's story. Errors are rethrown.
 */
export function createShare(
  kind: ShareKind,
  id: string,
  expiresAt: string | null,
  subject?: string,
): Promise<CreatedShare> {
  return apiRequest<CreatedShare>(collection(kind, id), {
    method: 'POST',
    body: { ...(expiresAt ? { expires_at: expiresAt } : {}), ...(subject ? { character: subject } : {}) },
    errorMessage: 'Failed to create the share link',
  });
}

/** DELETE .../shares/{shareId}: the link stops working at once; errors are rethrown. */
export function revokeShare(kind: ShareKind, id: string, shareId: string): Promise<unknown> {
  return apiRequest(`${collection(kind, id)}/${encodeURIComponent(shareId)}`, {
    method: 'DELETE',
    errorMessage: 'Failed to revoke the share link',
  });
}

/** GET /shared/{token}: what a link shows, without signing in; errors are rethrown. */
export function getShared(token: string): Promise<SharedView> {
  return apiRequest<SharedView>(`/shared/${encodeURIComponent(token)}`, {
    errorMessage: 'This link does not work (it may have been revoked or have expired)',
  });
}

/** GET /shared/{token}/sessions/{id}: one session of a shared campaign; errors are rethrown. */
export function getSharedSession(token: string, sessionId: string): Promise<SharedTranscript> {
  return apiRequest<SharedTranscript>(
    `/shared/${encodeURIComponent(token)}/sessions/${encodeURIComponent(sessionId)}`,
    { errorMessage: 'This session could not be opened' },
  );
}

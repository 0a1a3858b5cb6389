import {
  SHARES_PER_TARGET_MAX,
  type createShareRpc,
  type listSharesRpc,
  type resolveShareRpc,
  type revokeShareRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import { isUuid, ServiceError } from '@chronicler/kit';
import { newShareToken, type ShareStore } from '../db/share-store.ts';
import type { TranscriptStore } from '../db/store.ts';
import { bad, transcriptNotFound } from '../validation.ts';

const shareNotFound = (): ServiceError => new ServiceError('not_found', 'Share link not found');
/** The longest expiry a link may be given (ten years: "forever" is no expiry at all). */
const MAX_EXPIRY_MS = 10 * 365 * 24 * 60 * 60 * 1000;

function checkExpiry(expiresAt: string | undefined): string | null {
  if (expiresAt === undefined || expiresAt === '') return null;
  const at = Date.parse(expiresAt);
  if (!Number.isFinite(at)) throw bad('expires_at must be a date and time (ISO 8601)');
  if (at <= Date.now()) throw bad('expires_at must be in the future');
  if (at > Date.now() + MAX_EXPIRY_MS) throw bad('expires_at must be within ten years');
  return new Date(at).toISOString();
}

/**
 * svc.transcript.share-create. A session's link needs the owner's session; a group's is
 * checked by the caller (the gateway asks the group service), the group being another
 * service's. The token is answered this once and only its hash is kept.
 */
export const createShare =
  (shares: ShareStore, transcripts: TranscriptStore) =>
  async (req: RpcRequest<typeof createShareRpc>): Promise<RpcResponse<typeof createShareRpc>> => {
    if (req.kind === 'transcript' && !(await transcripts.getItem(req.owner_id, req.target_id))) {
      throw transcriptNotFound();
    }
    if (!isUuid(req.target_id)) throw new ServiceError('not_found', 'Group not found');
    const expiresAt = checkExpiry(req.expires_at);
    if ((await shares.list(req.owner_id, req.kind, req.target_id)).length >= SHARES_PER_TARGET_MAX) {
      throw bad(`At most ${SHARES_PER_TARGET_MAX} links per session or campaign: revoke one first`);
    }
    const token = newShareToken();
    const subject = req.kind === 'character-recap' ? (req.subject ?? '').trim() : '';
    const share = await shares.create(req.owner_id, req.kind, req.target_id, token, expiresAt, subject);
    return { ...share, token, path: `/shared/${token}` };
  };

export const listShares =
  (shares: ShareStore, transcripts: TranscriptStore) =>
  async (req: RpcRequest<typeof listSharesRpc>): Promise<RpcResponse<typeof listSharesRpc>> => {
    if (req.kind === 'transcript' && !(await transcripts.getItem(req.owner_id, req.target_id))) {
      throw transcriptNotFound();
    }
    return shares.list(req.owner_id, req.kind, req.target_id);
  };

export const revokeShare =
  (shares: ShareStore) =>
  async (req: RpcRequest<typeof revokeShareRpc>): Promise<RpcResponse<typeof revokeShareRpc>> => {
    if (!(await shares.revoke(req.owner_id, req.kind, req.target_id, req.share_id))) throw shareNotFound();
    return { ok: true };
  };

export const resolveShare =
  (shares: ShareStore) =>
  async (req: RpcRequest<typeof resolveShareRpc>): Promise<RpcResponse<typeof resolveShareRpc>> => {
    const found = await shares.resolve(req.token);
    if (!found) throw shareNotFound();
    return found;
  };

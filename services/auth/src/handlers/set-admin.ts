import type { RpcRequest, RpcResponse, setAdminRpc } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import type { AuthSettings } from '../config.ts';
import type { AuthStore } from '../db/store.ts';
import { toAuthUser } from '../sessions.ts';

/**
 * svc.auth.set-admin (and `pnpm admin:grant` on a stopped embedded instance): sets the stored
 * admin flag of the user `req.user` names (see AuthStore.findUsers). Sessions carry the user,
 * not a copy of the flag: verify-session reads the row, so the change holds from the next
 * check a gateway makes (its cache keeps a check up to SESSION_CACHE_TTL_MS), and at the next
 * sign-in at the latest.
 */
export const setAdmin =
  (store: AuthStore, settings: AuthSettings) =>
  async (req: RpcRequest<typeof setAdminRpc>): Promise<RpcResponse<typeof setAdminRpc>> => {
    const who = req.user.trim();
    if (!who) throw new ServiceError('bad_request', 'Name a user: a user id or a username.');
    const found = await store.findUsers(who);
    if (found.length === 0) {
      throw new ServiceError(
        'not_found',
        `No user is called or has the id "${who}". They must sign in once first.`,
      );
    }
    if (found.length > 1) {
      throw new ServiceError('conflict', `More than one user is called "${who}": use the user id instead.`);
    }
    const row = await store.setAdmin(found[0]!.id, req.admin);
    if (!row) throw new ServiceError('not_found', `The user "${who}" was deleted meanwhile.`);
    return {
      id: row.id,
      username: row.username,
      stored_admin: row.is_admin,
      is_admin: toAuthUser(row, settings).is_admin,
    };
  };

import type { RpcRequest, RpcResponse, usersByIdsRpc } from '@chronicler/contracts';
import type { AuthStore } from '../db/store.ts';

/** svc.auth.users-by-ids: who made the admin dashboard's recent AI requests. */
export const usersByIds =
  (store: AuthStore) =>
  async (req: RpcRequest<typeof usersByIdsRpc>): Promise<RpcResponse<typeof usersByIdsRpc>> => ({
    users: (await store.usersByIds(req.ids)).map((u) => ({ id: u.id, username: u.username, email: u.email })),
  });

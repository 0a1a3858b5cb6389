import type { AuthUser } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import { toAuthUser, type AuthDeps } from '../sessions.ts';

/** svc.auth.get-user: one user by id. */
export const getUser =
  ({ settings, store }: AuthDeps) =>
  async (req: { user_id: string }): Promise<AuthUser> => {
    const row = await store.userById(req.user_id);
    if (!row) throw new ServiceError('not_found', 'User not found');
    return toAuthUser(row, settings);
  };

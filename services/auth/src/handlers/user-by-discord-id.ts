import type { AuthUser, RpcRequest, userByDiscordIdRpc } from '@chronicler/contracts';
import { ServiceError, type DatabaseHandle } from '@chronicler/kit';
import type { UserRow } from '../db/tables.ts';
import { toAuthUser, type AuthDeps } from '../sessions.ts';

/**
 * svc.auth.user-by-discord-id: the voice bot's owner lookup. The query sits here rather than
 * in AuthStore so this endpoint stays one additive file (users.discord_id is unique).
 */
export const userByDiscordId =
  ({ settings }: AuthDeps, db: DatabaseHandle, schema: string) =>
  async (req: RpcRequest<typeof userByDiscordIdRpc>): Promise<AuthUser> => {
    const [row] = await db.query<UserRow>(`select * from "${schema}".users where discord_id = $1`, [
      req.discord_id,
    ]);
    if (!row) throw new ServiceError('not_found', 'No Chronicler account is linked to that Discord account');
    return toAuthUser(row, settings);
  };

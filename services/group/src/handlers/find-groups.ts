import {
  FIND_GROUPS_MAX,
  type findGroupsRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import { isUuid, type DatabaseHandle } from '@chronicler/kit';

/** LIKE's wildcards taken literally. */
const likeLiteral = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * svc.group.find: the owner's groups by whole name or by name prefix, ignoring case (the
 * voice bot's `/start group` and its autocomplete). Ids and names only, so it never asks the
 * transcript service for members. The query sits here rather than in GroupStore so this
 * endpoint stays one additive file; it reads the owner's rows through groups_owner_list.
 */
export const findGroups =
  (db: DatabaseHandle, schema: string) =>
  async (req: RpcRequest<typeof findGroupsRpc>): Promise<RpcResponse<typeof findGroupsRpc>> => {
    if (!isUuid(req.owner_id)) return { items: [] };
    const limit = Math.min(req.limit ?? FIND_GROUPS_MAX, FIND_GROUPS_MAX);
    const table = `"${schema}".groups`;
    const name = req.name?.trim();
    const rows =
      name !== undefined
        ? await db.query<{ id: string; name: string }>(
            `select id, name from ${table} where owner_id = $1 and lower(name) = lower($2)
              order by created_at, id limit $3`,
            [req.owner_id, name, limit],
          )
        : await db.query<{ id: string; name: string }>(
            `select id, name from ${table}
              where owner_id = $1 and ($2::text = '' or lower(name) like lower($2) || '%' escape '\\')
              order by lower(name), created_at limit $3`,
            [req.owner_id, likeLiteral(req.prefix?.trim() ?? ''), limit],
          );
    return { items: rows.map((r) => ({ id: String(r.id), name: String(r.name) })) };
  };

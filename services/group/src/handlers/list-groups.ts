import { call, isUuid, type Bus } from '@chronicler/kit';
import {
  groupMembersRpc,
  LIST_PAGE_DEFAULT,
  type listGroupsRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import type { GroupCursor, GroupStore } from '../db/store.ts';
import { bad } from './group-errors.ts';

const encode = (c: GroupCursor): string =>
  Buffer.from(JSON.stringify([c.created, c.id])).toString('base64url');

function decode(after: string): GroupCursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(after, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((v) => typeof v === 'string')) {
      const [created, id] = parsed as [string, string];
      if (isUuid(id) && Number.isFinite(Date.parse(created))) return { created, id };
    }
  } catch {
    // Not JSON: refused below like any other malformed cursor.
  }
  throw bad('Invalid list cursor');
}

/**
 * svc.group.list: one page of the owner's groups. Session ids come from the transcript
 * service, which owns membership, for this page's groups only.
 */
export const listGroups =
  (store: GroupStore, bus: Bus) =>
  async (req: RpcRequest<typeof listGroupsRpc>): Promise<RpcResponse<typeof listGroupsRpc>> => {
    const limit = req.limit ?? LIST_PAGE_DEFAULT;
    // One row more than the page tells whether another page follows, without a count.
    const rows = await store.listPage(req.owner_id, req.after ? decode(req.after) : null, limit + 1);
    const page = rows.slice(0, limit);
    const members =
      page.length === 0
        ? {}
        : await call(bus, groupMembersRpc, { owner_id: req.owner_id, group_ids: page.map((r) => r.row.id) });
    return {
      items: page.map(({ row }) => ({ ...row, group_id: row.id, session_ids: members[row.id] ?? [] })),
      next: rows.length > limit ? encode(page[page.length - 1]!.cursor) : null,
    };
  };

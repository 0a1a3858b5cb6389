import { call, type Bus } from '@chronicler/kit';
import { groupMembersRpc, type Group } from '@chronicler/contracts';
import type { GroupStore } from '../db/store.ts';
import { groupNotFound } from './group-errors.ts';

/** svc.group.get: one of the owner's groups with its session ids; another user's is not found. */
export const getGroup =
  (store: GroupStore, bus: Bus) =>
  async (req: { owner_id: string; id: string }): Promise<Group> => {
    const row = await store.get(req.owner_id, req.id);
    if (!row) throw groupNotFound();
    const members = await call(bus, groupMembersRpc, { owner_id: req.owner_id, group_ids: [row.id] });
    return { ...row, group_id: row.id, session_ids: members[row.id] ?? [] };
  };

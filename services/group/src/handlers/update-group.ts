import { call, type Bus } from '@chronicler/kit';
import { groupMembersRpc, type Group } from '@chronicler/contracts';
import type { GroupStore } from '../db/store.ts';
import { checkGroupName, checkGroupSummary, groupNotFound } from './group-errors.ts';

/** svc.group.update: name and/or summary; what is not sent stays. */
export const updateGroup =
  (store: GroupStore, bus: Bus) =>
  async (req: { owner_id: string; id: string; name?: string; summary?: string }): Promise<Group> => {
    if (!(await store.get(req.owner_id, req.id))) throw groupNotFound();
    const name = req.name === undefined ? undefined : checkGroupName(req.name);
    if (req.summary !== undefined) checkGroupSummary(req.summary);
    const row = await store.update(req.owner_id, req.id, { name, summary: req.summary });
    if (!row) throw groupNotFound();
    const members = await call(bus, groupMembersRpc, { owner_id: req.owner_id, group_ids: [row.id] });
    return { ...row, group_id: row.id, session_ids: members[row.id] ?? [] };
  };

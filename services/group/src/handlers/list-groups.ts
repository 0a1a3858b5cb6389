import { call, type Bus } from '@chronicler/kit';
import { groupMembersRpc, type Group } from '@chronicler/contracts';
import type { GroupStore } from '../db/store.ts';

/** svc.group.list: the owner's groups; session ids come from the transcript service, which owns membership. */
export const listGroups =
  (store: GroupStore, bus: Bus) =>
  async (req: { owner_id: string }): Promise<Group[]> => {
    const [rows, members] = await Promise.all([store.list(req.owner_id), call(bus, groupMembersRpc, req)]);
    return rows.map((g) => ({ ...g, group_id: g.id, session_ids: members[g.id] ?? [] }));
  };

import type { Group } from '@chronicler/contracts';
import type { GroupStore } from '../db/store.ts';
import { checkGroupName } from './group-errors.ts';

/** svc.group.create: a new group has no sessions yet. */
export const createGroup =
  (store: GroupStore) =>
  async (req: { owner_id: string; name?: string }): Promise<Group> => {
    const row = await store.create(req.owner_id, checkGroupName(req.name));
    return { ...row, group_id: row.id, session_ids: [] };
  };

import type { GroupStore } from '../db/store.ts';

/** svc.group.exists: whether the id is one of the owner's groups. */
export const groupExists =
  (store: GroupStore) =>
  async (req: { owner_id: string; id: string }): Promise<{ exists: boolean }> => ({
    exists: await store.exists(req.owner_id, req.id),
  });

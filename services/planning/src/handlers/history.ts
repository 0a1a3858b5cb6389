import { PLANNING_HISTORY_LIMIT, type PlanningMessage } from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import type { PlanningStore } from '../db/store.ts';
import { ownGroup } from './group-of.ts';

/** svc.planning.history: the group's recent planning messages; not_found for a group not the owner's. */
export const history =
  (store: PlanningStore, bus: Bus) =>
  async (req: { owner_id: string; group_id: string }): Promise<{ messages: PlanningMessage[] }> => {
    const group = await ownGroup(bus, req.owner_id, req.group_id);
    return { messages: await store.recent(req.owner_id, group.id, PLANNING_HISTORY_LIMIT) };
  };

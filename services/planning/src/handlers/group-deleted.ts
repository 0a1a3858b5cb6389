import { groupDeletedEvent } from '@chronicler/contracts';
import { assertValid, type Logger } from '@chronicler/kit';
import type { PlanningStore } from '../db/store.ts';

/** evt.group.deleted (durable): the group's planning chat goes with it; a redelivery changes nothing. */
export const onGroupDeleted =
  (store: PlanningStore, logger: Logger) =>
  async (payload: unknown): Promise<void> => {
    assertValid(groupDeletedEvent.payload, payload, 'evt.group.deleted');
    const { owner_id, group_id } = payload as { owner_id: string; group_id: string };
    const n = await store.deleteGroup(owner_id, group_id);
    logger.debug({ group_id, deleted: n }, 'group deleted: planning messages removed');
  };

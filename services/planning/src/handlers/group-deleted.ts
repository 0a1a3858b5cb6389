import type { BusEventPayload, groupDeletedEvent } from '@chronicler/contracts';
import type { Logger } from '@chronicler/kit';
import type { PlanningStore } from '../db/store.ts';

/** evt.group.deleted (durable): the group's planning chat goes with it; a redelivery changes nothing. */
export const onGroupDeleted =
  (store: PlanningStore, logger: Logger) =>
  async ({ owner_id, group_id }: BusEventPayload<typeof groupDeletedEvent>): Promise<void> => {
    const n = await store.deleteGroup(owner_id, group_id);
    logger.debug({ group_id, deleted: n }, 'group deleted: planning messages removed');
  };

import type { BusEventPayload, groupDeletedEvent } from '@chronicler/contracts';
import type { Logger } from '@chronicler/kit';
import type { PrepStore } from '../db/prep-store.ts';
import type { PlanningStore } from '../db/store.ts';

/** evt.group.deleted (durable): the group's planning chat and prep go with it; a redelivery changes nothing. */
export const onGroupDeleted =
  (store: PlanningStore, prep: PrepStore, logger: Logger) =>
  async ({ owner_id, group_id }: BusEventPayload<typeof groupDeletedEvent>): Promise<void> => {
    const n = await store.deleteGroup(owner_id, group_id);
    const items = await prep.deleteGroup(owner_id, group_id);
    logger.debug(
      { group_id, deleted: n, prep_items: items },
      'group deleted: planning messages and prep removed',
    );
  };

import type { BusEventPayload, groupDeletedEvent } from '@chronicler/contracts';
import type { Logger } from '@chronicler/kit';
import type { ShareStore } from '../db/share-store.ts';
import type { TranscriptStore } from '../db/store.ts';

/** evt.group.deleted (durable): the group's sessions become ungrouped and its links stop; a redelivery changes nothing. */
export const onGroupDeleted =
  (store: TranscriptStore, shares: ShareStore, logger: Logger) =>
  async ({ owner_id, group_id }: BusEventPayload<typeof groupDeletedEvent>): Promise<void> => {
    const n = await store.ungroup(owner_id, group_id);
    await shares.deleteForGroup(owner_id, group_id);
    logger.debug({ group_id, ungrouped: n }, 'group deleted: sessions ungrouped');
  };

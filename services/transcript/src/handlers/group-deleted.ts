import { assertValid, type Logger } from '@chronicler/kit';
import { groupDeletedEvent } from '@chronicler/contracts';
import type { TranscriptStore } from '../db/store.ts';

/** evt.group.deleted (durable): the group's sessions become ungrouped; a redelivery changes nothing. */
export const onGroupDeleted =
  (store: TranscriptStore, logger: Logger) =>
  async (payload: unknown): Promise<void> => {
    assertValid(groupDeletedEvent.payload, payload, 'evt.group.deleted');
    const { owner_id, group_id } = payload as { owner_id: string; group_id: string };
    const n = await store.ungroup(owner_id, group_id);
    logger.debug({ group_id, ungrouped: n }, 'group deleted: sessions ungrouped');
  };

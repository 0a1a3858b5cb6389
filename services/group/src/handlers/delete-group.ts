import { groupDeletedEvent } from '@chronicler/contracts';
import type { EventOutbox } from '@chronicler/kit';
import type { GroupStore } from '../db/store.ts';
import { groupNotFound } from './group-errors.ts';

/**
 * svc.group.delete: deletes the row and writes evt.group.deleted to the outbox in one
 * transaction; the outbox relays it once committed. So the event exists exactly when the
 * row is gone, and a bus that fails at that moment delays the event instead of failing a
 * delete that is stored. The transcript service ungroups the sessions when it consumes the
 * event, and its assign-group checks the group again after writing, so a session assigned
 * while the group is being deleted is ungrouped by one or the other. msgId = the group id.
 */
export const deleteGroup =
  (store: GroupStore, outbox: EventOutbox) =>
  async (req: { owner_id: string; id: string }): Promise<{ ok: true }> => {
    const deleted = await store.deleteWithin(req.owner_id, req.id, (tx) =>
      outbox.add(tx, {
        subject: groupDeletedEvent.subject,
        payload: { group_id: req.id, owner_id: req.owner_id },
        msgId: req.id,
      }),
    );
    if (!deleted) throw groupNotFound();
    outbox.wake();
    return { ok: true };
  };

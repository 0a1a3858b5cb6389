import { groupDeletedEvent } from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import type { GroupStore } from '../db/store.ts';
import { groupNotFound } from './group-errors.ts';

/**
 * svc.group.delete: deletes the row and publishes evt.group.deleted durably inside one
 * transaction, publishing before the commit (a failed publish rolls the delete back). So
 * once the event exists the row is gone, or about to be: svc.group.exists waits for the
 * commit. The transcript service ungroups the sessions when it consumes the event, and its
 * assign-group checks the group again after writing, so a session assigned while the
 * group is being deleted is ungrouped by one or the other. msgId = the group id: a delete
 * retried after a failed commit publishes no second event.
 */
export const deleteGroup =
  (store: GroupStore, bus: Bus) =>
  async (req: { owner_id: string; id: string }): Promise<{ ok: true }> => {
    const deleted = await store.deleteWithin(req.owner_id, req.id, async () => {
      await bus.publishDurable(
        groupDeletedEvent.subject,
        { group_id: req.id, owner_id: req.owner_id },
        { msgId: req.id },
      );
    });
    if (!deleted) throw groupNotFound();
    return { ok: true };
  };

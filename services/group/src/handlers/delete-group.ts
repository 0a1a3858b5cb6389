import { groupDeletedEvent } from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import type { GroupStore } from '../db/store.ts';
import { groupNotFound } from './group-errors.ts';

/**
 * svc.group.delete: publishes evt.group.deleted durably (msgId = the group id, so a retried
 * delete is de-duplicated), then deletes the row; the transcript service ungroups the
 * sessions when it consumes the event. Publishing first means a failure leaves at worst a
 * group whose sessions were ungrouped (a retry finishes the delete), never sessions that
 * point at a group that no longer exists.
 */
export const deleteGroup =
  (store: GroupStore, bus: Bus) =>
  async (req: { owner_id: string; id: string }): Promise<{ ok: true }> => {
    if (!(await store.get(req.owner_id, req.id))) throw groupNotFound();
    await bus.publishDurable(
      groupDeletedEvent.subject,
      { group_id: req.id, owner_id: req.owner_id },
      { msgId: req.id },
    );
    if (!(await store.delete(req.owner_id, req.id))) throw groupNotFound();
    return { ok: true };
  };

import {
  groupExistsRpc,
  type assignTranscriptGroupRpc,
  type RpcRequest,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { TranscriptStore } from '../db/store.ts';
import { transcriptNotFound } from '../validation.ts';

const groupNotFound = (): ServiceError => new ServiceError('not_found', 'Group not found');

/**
 * svc.transcript.assign-group: the group must be one of the owner's (the group service
 * says so); group_id null removes the session from its group.
 *
 * The group can be deleted between the first check and the write, and its evt.group.deleted
 * consumed before the write lands, which would leave the session pointing at a group that
 * no longer exists. So the group is checked again after the write: the group service
 * deletes the row before the event exists, so a group still there now will have its event
 * (and its ungrouping) come after our write, and a group gone now is undone here.
 */
export const assignGroup =
  (store: TranscriptStore, bus: Bus) =>
  async (req: RpcRequest<typeof assignTranscriptGroupRpc>): Promise<TranscriptListItem> => {
    if (!(await store.getItem(req.owner_id, req.id))) throw transcriptNotFound();
    const groupExists = async (groupId: string): Promise<boolean> =>
      (await call(bus, groupExistsRpc, { owner_id: req.owner_id, id: groupId })).exists;
    if (req.group_id !== null && !(await groupExists(req.group_id))) throw groupNotFound();
    const updated = await store.setGroup(req.owner_id, req.id, req.group_id);
    if (!updated) throw transcriptNotFound();
    if (req.group_id !== null && !(await groupExists(req.group_id))) {
      // Every session of the deleted group, not only this one: another assignment may have
      // raced the deletion the same way.
      await store.ungroup(req.owner_id, req.group_id);
      throw groupNotFound();
    }
    return updated;
  };

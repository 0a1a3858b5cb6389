import {
  groupExistsRpc,
  type assignTranscriptGroupRpc,
  type RpcRequest,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { TranscriptStore } from '../db/store.ts';
import { transcriptNotFound } from '../validation.ts';

/**
 * svc.transcript.assign-group: the group must be one of the owner's (the group service
 * says so); group_id null removes the session from its group.
 */
export const assignGroup =
  (store: TranscriptStore, bus: Bus) =>
  async (req: RpcRequest<typeof assignTranscriptGroupRpc>): Promise<TranscriptListItem> => {
    if (!(await store.getItem(req.owner_id, req.id))) throw transcriptNotFound();
    if (req.group_id !== null) {
      const { exists } = await call(bus, groupExistsRpc, { owner_id: req.owner_id, id: req.group_id });
      if (!exists) throw new ServiceError('not_found', 'Group not found');
    }
    const updated = await store.setGroup(req.owner_id, req.id, req.group_id);
    if (!updated) throw transcriptNotFound();
    return updated;
  };

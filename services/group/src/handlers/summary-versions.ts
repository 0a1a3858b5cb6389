import {
  SUMMARY_VERSIONS_SHOWN,
  type Group,
  type restoreSummaryRpc,
  type RpcRequest,
  type SummaryVersionList,
} from '@chronicler/contracts';
import { ServiceError, type Bus } from '@chronicler/kit';
import type { GroupStore } from '../db/store.ts';
import { groupNotFound } from './group-errors.ts';
import { getGroup } from './get-group.ts';

/** svc.group.summary-versions: the campaign summaries replaced so far, newest first. */
export const summaryVersions =
  (store: GroupStore) =>
  async (req: { owner_id: string; id: string }): Promise<SummaryVersionList> => {
    const list = await store.versions.list(req.owner_id, req.id, SUMMARY_VERSIONS_SHOWN);
    if (!list) throw groupNotFound();
    return list;
  };

/** svc.group.restore-summary: a kept version is the campaign summary again. */
export const restoreSummary =
  (store: GroupStore, bus: Bus) =>
  async (req: RpcRequest<typeof restoreSummaryRpc>): Promise<Group> => {
    if (!(await store.get(req.owner_id, req.id))) throw groupNotFound();
    if (!(await store.versions.restore(req.owner_id, req.id, req.version_id))) {
      throw new ServiceError('not_found', 'Summary version not found');
    }
    return getGroup(store, bus)({ owner_id: req.owner_id, id: req.id });
  };

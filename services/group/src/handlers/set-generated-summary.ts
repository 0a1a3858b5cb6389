import { call, type Bus } from '@chronicler/kit';
import {
  CAMPAIGN_SUMMARY_MAX,
  groupMembersRpc,
  type Group,
  type RpcRequest,
  type setGroupGeneratedSummaryRpc,
} from '@chronicler/contracts';
import type { GroupStore } from '../db/store.ts';
import { groupNotFound } from './group-errors.ts';

/**
 * svc.group.set-generated-summary: the summary service's campaign summary. It is cut to the
 * limit a hand-written one has, so the group form can still save it unchanged.
 */
export const setGeneratedSummary =
  (store: GroupStore, bus: Bus) =>
  async (req: RpcRequest<typeof setGroupGeneratedSummaryRpc>): Promise<Group> => {
    const clean = (s: string) => s.replaceAll('\u0000', '');
    const summary = clean(req.summary).trim().slice(0, CAMPAIGN_SUMMARY_MAX);
    const row = await store.setGeneratedSummary(req.owner_id, req.id, summary, clean(req.llm_summary));
    if (!row) throw groupNotFound();
    const members = await call(bus, groupMembersRpc, { owner_id: req.owner_id, group_ids: [row.id] });
    return { ...row, group_id: row.id, session_ids: members[row.id] ?? [] };
  };

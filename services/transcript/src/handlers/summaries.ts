import {
  SUMMARY_MAX,
  summaryMsgId,
  transcriptReadyForSummaryEvent,
  type claimSummaryRpc,
  type getLlmSummaryRpc,
  type RpcRequest,
  type RpcResponse,
  type setGeneratedSummaryRpc,
  type setSummaryStatusRpc,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { ServiceError, type OutboxMessage } from '@chronicler/kit';
import type { TranscriptStore } from '../db/store.ts';
import { transcriptNotFound } from '../validation.ts';

/**
 * The event that offers an ended session without a summary to the summary service for its
 * automatic summary, for the outbox of the write that made it so; none otherwise. The msgId
 * makes a second one for the same session (a redelivered job) a duplicate.
 */
export function readyForSummary(item: TranscriptListItem, ownerId: string): OutboxMessage[] {
  if (item.status !== 'ended' || item.summary.trim()) return [];
  return [
    {
      subject: transcriptReadyForSummaryEvent.subject,
      payload: { owner_id: ownerId, transcript_id: item.id },
      msgId: summaryMsgId(item.id),
    },
  ];
}

export const claimSummary =
  (store: TranscriptStore) =>
  async (req: RpcRequest<typeof claimSummaryRpc>): Promise<RpcResponse<typeof claimSummaryRpc>> => ({
    claimed: await store.claimSummary(req.owner_id, req.id),
  });

export const setSummaryStatus =
  (store: TranscriptStore) =>
  async (req: RpcRequest<typeof setSummaryStatusRpc>): Promise<RpcResponse<typeof setSummaryStatusRpc>> => {
    if (!(await store.setSummaryStatus(req.owner_id, req.id, req.status))) throw transcriptNotFound();
    return { ok: true };
  };

/** svc.transcript.set-generated-summary: an AI summary, cut to the summary limit the forms keep. */
export const setGeneratedSummary =
  (store: TranscriptStore) =>
  async (req: RpcRequest<typeof setGeneratedSummaryRpc>): Promise<TranscriptListItem> => {
    // PostgreSQL text cannot hold NUL; a model's stray one is dropped rather than failing the summary.
    const summary = req.summary.replaceAll('\u0000', '').trim().slice(0, SUMMARY_MAX);
    const llm = req.llm_summary.replaceAll('\u0000', '');
    const outcome = await store.setGeneratedSummary(req.owner_id, req.id, summary, llm);
    if (outcome === 'missing') throw transcriptNotFound();
    if (outcome === 'active') {
      throw new ServiceError('conflict', 'Cannot generate a summary while the session is being recorded.');
    }
    return outcome;
  };

export const getLlmSummary =
  (store: TranscriptStore) =>
  async (req: RpcRequest<typeof getLlmSummaryRpc>): Promise<RpcResponse<typeof getLlmSummaryRpc>> => {
    const llm = await store.llmSummary(req.id);
    if (llm === null) throw transcriptNotFound();
    return { id: req.id, llm_summary: llm };
  };

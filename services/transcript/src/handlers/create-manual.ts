import type { createManualTranscriptRpc, RpcRequest, TranscriptListItem } from '@chronicler/contracts';
import { call, ServiceError, type Bus, type EventOutbox } from '@chronicler/kit';
import { groupExistsRpc } from '@chronicler/contracts';
import type { TranscriptStore } from '../db/store.ts';
import { readyForSummary } from './summaries.ts';
import { bad, checkName, checkSummary, checkTranscript, parseSessionDate, previewOf } from '../validation.ts';

/**
 * svc.transcript.create-manual: every check first, then one insert; bad input changes nothing.
 * The automatic summary's request commits with the insert (the outbox relays it), so a bus
 * failing at that moment delays it instead of answering 5xx for a session that exists.
 */
export const createManual =
  (store: TranscriptStore, bus: Bus, outbox: EventOutbox) =>
  async (req: RpcRequest<typeof createManualTranscriptRpc>): Promise<TranscriptListItem> => {
    const name = checkName(req.name, 'Session name is required');
    const sessionTimestamp = parseSessionDate(req.session_date);
    const summary = req.summary ?? '';
    const content = req.transcript ?? '';
    if (!summary.trim() && !content.trim()) {
      throw bad('Please provide either a summary, a transcript, or an audio file');
    }
    checkSummary(summary);
    checkTranscript(content);
    const groupId = req.group_id ? req.group_id : null;
    if (groupId) {
      const { exists } = await call(bus, groupExistsRpc, { owner_id: req.owner_id, id: groupId });
      if (!exists) throw new ServiceError('not_found', 'Group not found');
    }
    const item = await store.createManual(
      req.owner_id,
      { name, sessionTimestamp, summary, content, preview: previewOf(content), groupId },
      (tx, created) => outbox.add(tx, ...readyForSummary(created, req.owner_id)),
    );
    outbox.wake();
    return item;
  };

import {
  summaryReadyEvent,
  type claimRecapRpc,
  type guildRecapsRpc,
  type recapTargetRpc,
  type RpcRequest,
  type RpcResponse,
  type setGeneratedSummaryRpc,
  type TranscriptListItem,
} from '@chronicler/contracts';
import type { Bus, Logger } from '@chronicler/kit';
import type { RecapStore } from '../db/recap-store.ts';

/**
 * svc.transcript.set-generated-summary, announcing the summary on the bus once stored
 * (`evt.transcript.summary-ready`: the voice bot posts the recap back to Discord). A bus
 * failing then only costs that post; the summary is stored either way.
 */
export const announcingSummary =
  (
    store: (req: RpcRequest<typeof setGeneratedSummaryRpc>) => Promise<TranscriptListItem>,
    bus: Bus,
    logger: Logger,
  ) =>
  async (req: RpcRequest<typeof setGeneratedSummaryRpc>): Promise<TranscriptListItem> => {
    const item = await store(req);
    if (item.summary.trim()) {
      await bus
        .publishDurable(summaryReadyEvent.subject, { owner_id: req.owner_id, transcript_id: req.id })
        .catch((err: unknown) => logger.warn({ err, transcriptId: req.id }, 'summary-ready not published'));
    }
    return item;
  };

export const recapTarget =
  (recaps: RecapStore) =>
  async (req: RpcRequest<typeof recapTargetRpc>): Promise<RpcResponse<typeof recapTargetRpc>> => {
    await recaps.setTarget(req.owner_id, req.id, req.guild_id, req.channel_id);
    return { ok: true };
  };

export const claimRecap =
  (recaps: RecapStore) =>
  async (req: RpcRequest<typeof claimRecapRpc>): Promise<RpcResponse<typeof claimRecapRpc>> => {
    if (req.release) {
      await recaps.release(req.id);
      return { claimed: false, recap: null };
    }
    const recap = await recaps.claim(req.id);
    return { claimed: recap !== null, recap };
  };

export const guildRecaps =
  (recaps: RecapStore) =>
  (req: RpcRequest<typeof guildRecapsRpc>): Promise<RpcResponse<typeof guildRecapsRpc>> =>
    recaps.ofGuild(req.owner_id, req.guild_id, {
      ...(req.q ? { q: req.q } : {}),
      ...(req.id ? { id: req.id } : {}),
      limit: req.limit ?? 25,
    });

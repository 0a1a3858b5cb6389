import type { liveJoinRpc, RpcRequest, RpcResponse } from '@chronicler/contracts';
import type { LiveStore } from '../db/live-store.ts';
import { transcriptNotFound } from '../validation.ts';

/** Lines one join answers at most; a client with less asks again from the last one it got. */
const JOIN_PAGE = 2000;

/** svc.transcript.live-join: the owner's live session and its lines after `after_seq`. */
export const liveJoin =
  (live: LiveStore) =>
  async (req: RpcRequest<typeof liveJoinRpc>): Promise<RpcResponse<typeof liveJoinRpc>> => {
    const view = await live.join(
      req.owner_id,
      req.id,
      req.after_seq,
      Math.min(req.limit ?? JOIN_PAGE, JOIN_PAGE),
    );
    if (!view) throw transcriptNotFound();
    return {
      transcript_id: view.session.transcriptId,
      session_start_time: view.session.startedAt,
      status: view.status,
      name: view.session.name,
      last_seq: view.session.finalCount,
      ...(view.session.endedAt ? { ended_at: view.session.endedAt } : {}),
      lines: view.lines,
      more: view.more,
    };
  };

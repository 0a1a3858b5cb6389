import {
  SESSION_AUDIO_BUCKET,
  type memberForgetRpc,
  type memberRecordedRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import { ServiceError, type Bus, type Logger } from '@chronicler/kit';
import type { MemberDataStore } from '../db/member-data.ts';

/** svc.transcript.member-recorded: the sessions in which the member's voice was recorded. */
export const memberRecorded =
  (members: MemberDataStore) =>
  (req: RpcRequest<typeof memberRecordedRpc>): Promise<RpcResponse<typeof memberRecordedRpc>> =>
    members.recorded(req.discord_id, req.guild_id ?? null, req.with_lines === true);

/**
 * svc.transcript.member-forget: the member's part of one session removed. A session in which
 * they have nothing (or that does not exist) is not_found, whoever owns it.
 */
export const memberForget =
  (members: MemberDataStore, bus: Bus, logger: Logger) =>
  async (req: RpcRequest<typeof memberForgetRpc>): Promise<RpcResponse<typeof memberForgetRpc>> => {
    const r = await members.forget(req.discord_id, req.id, async (blob) => {
      await bus.blobs.delete(SESSION_AUDIO_BUCKET, blob);
    });
    if (r.kind === 'missing')
      throw new ServiceError('not_found', 'No recorded data of yours in this session');
    if (r.kind === 'active') {
      throw new ServiceError(
        'conflict',
        'This session is still being recorded. Ask again once it has ended (or use /offrecord now).',
      );
    }
    logger.info(
      { transcriptId: req.id, lines: r.lines, tracks: r.tracks },
      "a member's recorded data removed",
    );
    return { lines: r.lines, tracks: r.tracks };
  };

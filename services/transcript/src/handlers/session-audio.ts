import {
  SESSION_AUDIO_BUCKET,
  type keepTrackRpc,
  type RpcRequest,
  type RpcResponse,
  type sessionAudioRpc,
} from '@chronicler/contracts';
import type { Bus, Logger } from '@chronicler/kit';
import { MIME_BY_FORMAT, type AudioFormat } from '@chronicler/speech';
import type { AudioStore } from '../db/audio-store.ts';
import type { MemberDataStore } from '../db/member-data.ts';
import { transcriptNotFound } from '../validation.ts';

const contentTypeOf = (format: string): string =>
  MIME_BY_FORMAT[format as AudioFormat] ?? 'application/octet-stream';

/**
 * svc.transcript.session-audio: the kept tracks of one of the owner's sessions ([] when none):
 * an upload's one recording (speaker null), or the voice bot's one track per speaker.
 */
export const sessionAudio =
  (audio: AudioStore) =>
  async (req: RpcRequest<typeof sessionAudioRpc>): Promise<RpcResponse<typeof sessionAudioRpc>> => {
    const kept = await audio.kept(req.owner_id, req.id);
    const tracks = await audio.tracksOf(req.owner_id, req.id);
    if (!kept && tracks.length === 0 && !(await audio.owns(req.owner_id, req.id))) throw transcriptNotFound();
    return [
      ...(kept ? [{ speaker: null, ...kept, content_type: contentTypeOf(kept.format) }] : []),
      ...tracks.map((t) => ({ ...t, content_type: contentTypeOf(t.format) })),
    ];
  };

/**
 * svc.transcript.keep-track: records a speaker's track the voice bot put in the bucket. Two
 * members with the same name keep both tracks ("Matt", "Matt (2)"). A session deleted in the
 * meantime takes its track with it: the blob is deleted and the bot told it may let go.
 */
export const keepTrack =
  (audio: AudioStore, members: MemberDataStore, bus: Bus, logger: Logger) =>
  async (req: RpcRequest<typeof keepTrackRpc>): Promise<RpcResponse<typeof keepTrackRpc>> => {
    const track = { blob: req.blob, size: req.size, format: req.format, userId: req.user_id ?? null };
    // The member had their part of this session removed before the bot handed the track over.
    if (req.user_id && (await members.removed(req.transcript_id, req.user_id))) {
      await bus.blobs.delete(SESSION_AUDIO_BUCKET, req.blob);
      return { kept: false };
    }
    for (let n = 1; n <= 20; n++) {
      const speaker = n === 1 ? req.speaker : `${req.speaker} (${n})`;
      const outcome = await audio.keepTrack(req.owner_id, req.transcript_id, { ...track, speaker });
      if (outcome === 'kept') return { kept: true };
      if (outcome === 'missing') break;
    }
    logger.warn(
      { transcriptId: req.transcript_id, blob: req.blob },
      'track of a session that is gone: deleted',
    );
    await bus.blobs.delete(SESSION_AUDIO_BUCKET, req.blob);
    return { kept: false };
  };

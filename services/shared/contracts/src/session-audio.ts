import { Type, type Static } from '@sinclair/typebox';
import { OwnedIdRequestSchema } from './owner-scoped.ts';
import { rpc } from './rpc.ts';

/**
 * Blob bucket of the recordings kept with their sessions (no bucket TTL: each owner's
 * retention decides), apart from the short-lived upload bucket. Object names are
 * `<transcriptId>` for an upload's one track.
 */
export const SESSION_AUDIO_BUCKET = 'session-audio';

/** One playable track of a session: the whole recording (speaker null) or one speaker's. */
export const AudioTrackSchema = Type.Object({
  speaker: Type.Union([Type.String(), Type.Null()]),
  size: Type.Integer(),
  format: Type.String(),
  content_type: Type.String(),
  /** Where the web app plays it from (GET with Range). */
  url: Type.String(),
});
export type AudioTrack = Static<typeof AudioTrackSchema>;

/** GET /api/transcripts/{id}/audio/tracks: what can be played ([] when nothing was kept). */
export const AudioTracksSchema = Type.Array(AudioTrackSchema);

export const AudioQuerySchema = Type.Object({ speaker: Type.Optional(Type.String({ maxLength: 200 })) });

/** svc.transcript.session-audio: the owner's kept tracks of a session, by blob name; not_found when not theirs. */
export const sessionAudioRpc = rpc(
  'transcript',
  'session-audio',
  OwnedIdRequestSchema,
  Type.Array(
    Type.Object({
      speaker: Type.Union([Type.String(), Type.Null()]),
      blob: Type.String(),
      size: Type.Integer(),
      format: Type.String(),
      content_type: Type.String(),
    }),
  ),
);

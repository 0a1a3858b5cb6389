import { Type, type Static } from '@sinclair/typebox';
import { OwnedIdRequestSchema } from './owner-scoped.ts';
import { rpc } from './rpc.ts';

/**
 * Blob bucket of the recordings kept with their sessions (no bucket TTL: each owner's
 * retention decides), apart from the short-lived upload bucket. Object names are
 * `<transcriptId>` for an upload's one track, `<transcriptId>/<speaker file>.ogg` for each
 * speaker's track of a session the voice bot recorded (Ogg/Opus as recorded, track time 0 =
 * the session's start).
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

/**
 * svc.transcript.keep-track: the voice bot has put one speaker's finished recording of a
 * session into SESSION_AUDIO_BUCKET (named `<transcriptId>/<file>`); the transcript service
 * records it under the speaker's label. `kept: false` when the session is gone (deleted):
 * the service deleted the blob, and the bot's copy may go too. Idempotent per blob.
 */
export const keepTrackRpc = rpc(
  'transcript',
  'keep-track',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    transcript_id: Type.String({ minLength: 1 }),
    speaker: Type.String({ minLength: 1, maxLength: 200 }),
    blob: Type.String({ minLength: 1, maxLength: 400 }),
    size: Type.Integer({ minimum: 0 }),
    format: Type.String({ minLength: 1, maxLength: 20 }),
    /** The Discord user whose voice it is (so that they can have it deleted). */
    user_id: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  }),
  Type.Object({ kept: Type.Boolean() }),
);

/** Longest retention in days (100 years); "forever" is null. */
export const AUDIO_RETENTION_DAYS_MAX = 36_500;

/** GET/PUT /api/users/audio-settings: how long recordings are kept, and the storage they take. */
export const AudioSettingsSchema = Type.Object({
  /** Days a recording is kept after transcription; null: until its session is deleted. */
  retention_days: Type.Union([Type.Integer(), Type.Null()]),
  /** Bytes the owner's kept recordings take, and how many sessions keep one. */
  used_bytes: Type.Integer(),
  sessions_with_audio: Type.Integer(),
});
export type AudioSettings = Static<typeof AudioSettingsSchema>;

export const AudioSettingsBodySchema = Type.Object({
  retention_days: Type.Union([Type.Integer(), Type.Null()]),
});

/** svc.transcript.audio-settings: reads (retention_days absent) or sets the owner's retention. */
export const audioSettingsRpc = rpc(
  'transcript',
  'audio-settings',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    retention_days: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  }),
  AudioSettingsSchema,
);

/** GET /api/admin/audio-usage: what every user's kept recordings take. */
export const AudioUsageSchema = Type.Object({
  used_bytes: Type.Integer(),
  sessions_with_audio: Type.Integer(),
  owners: Type.Integer(),
});
export type AudioUsage = Static<typeof AudioUsageSchema>;

/** svc.transcript.audio-usage: the totals of kept recordings, for admins. */
export const audioUsageRpc = rpc('transcript', 'audio-usage', Type.Object({}), AudioUsageSchema);

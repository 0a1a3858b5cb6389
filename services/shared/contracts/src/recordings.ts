import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';

const Snowflake = Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9]+$' });

/** How long a /recording download link lasts by default (24 h), and at most (7 days). */
export const RECORDING_LINK_TTL_S = 86_400;
const RECORDING_LINK_TTL_S_MAX = 7 * 86_400;

/** A bot-recorded session of a server that kept per-speaker tracks. */
const RecordingSessionSchema = Type.Object({
  transcript_id: Type.String(),
  name: Type.String(),
  started_at: Type.String(),
});

/**
 * One signed download of a session's recording: `path` is `/api/recordings/{token}/{file}`,
 * `file` one of `speakers/<speaker>.ogg|flac` (a speaker's track as kept, or as FLAC),
 * `mixed.ogg|flac` (every track mixed) or `all.zip` (the per-speaker Ogg files).
 */
const RecordingFileSchema = Type.Object({
  file: Type.String(),
  speaker: Type.Union([Type.String(), Type.Null()]),
  path: Type.String(),
});
export type RecordingFile = Static<typeof RecordingFileSchema>;

/**
 * svc.transcript.recording-links: the bot sessions of a server with kept tracks, newest first
 * (the caller's own; any owner's when `any_owner`, for a member who can manage the server; by
 * name `q` or `id`), and with `sign`, links to the first one's files signed by the service
 * (HMAC-SHA256 over session, file and expiry with a key kept in its database) expiring after
 * `ttl_s` (default RECORDING_LINK_TTL_S).
 */
export const recordingLinksRpc = rpc(
  'transcript',
  'recording-links',
  Type.Object({
    guild_id: Snowflake,
    owner_id: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    any_owner: Type.Boolean(),
    q: Type.Optional(Type.String({ maxLength: 100 })),
    id: Type.Optional(Type.String({ maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25 })),
    sign: Type.Boolean(),
    ttl_s: Type.Optional(Type.Integer({ minimum: 1, maximum: RECORDING_LINK_TTL_S_MAX })),
  }),
  Type.Object({
    sessions: Type.Array(RecordingSessionSchema),
    links: Type.Union([
      Type.Null(),
      Type.Object({
        transcript_id: Type.String(),
        expires_at: Type.String(),
        files: Type.Array(RecordingFileSchema),
      }),
    ]),
  }),
);

/**
 * svc.transcript.recording-file: checks a link's token for `file`: 'invalid' (tampered, or
 * the session or file gone), 'expired', or 'ok' with the session's name and kept tracks.
 */
export const recordingFileRpc = rpc(
  'transcript',
  'recording-file',
  Type.Object({ token: Type.String({ maxLength: 200 }), file: Type.String({ maxLength: 400 }) }),
  Type.Object({
    status: Type.Union([Type.Literal('ok'), Type.Literal('expired'), Type.Literal('invalid')]),
    name: Type.String(),
    tracks: Type.Array(
      Type.Object({
        speaker: Type.String(),
        blob: Type.String(),
        size: Type.Integer(),
        content_type: Type.String(),
      }),
    ),
  }),
);

export const RecordingParamsSchema = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  file: Type.String({ minLength: 1, maxLength: 300 }),
});

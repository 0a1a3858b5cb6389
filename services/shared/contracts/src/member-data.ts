import { Type, type Static } from '@sinclair/typebox';
import { busEvent } from './events.ts';
import { rpc } from './rpc.ts';

/** What a recorded member's lines read once they asked for their data to be removed. */
export const REMOVED_LINE_TEXT = "[removed at the speaker's request]";

const DiscordId = Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9]+$' });

/** One session of someone else in which a member was recorded (their own part only). */
export const RecordedSessionSchema = Type.Object({
  transcript_id: Type.String(),
  name: Type.String(),
  guild_id: Type.String(),
  started_at: Type.String(),
  /** The member's lines still there (not removed). */
  lines: Type.Integer(),
  /** Whether a track of their voice is kept. */
  track: Type.Boolean(),
  /** The member's own lines, as `[HH:MM:SS] text`, when asked for (`with_lines`). */
  own_lines: Type.Optional(Type.Array(Type.String())),
});
export type RecordedSession = Static<typeof RecordedSessionSchema>;

/**
 * svc.transcript.member-recorded: the sessions in which this Discord member's voice was
 * recorded (lines whose speaker_user_id is theirs, or a track of theirs), newest first; one
 * server's only with `guild_id`.
 */
export const memberRecordedRpc = rpc(
  'transcript',
  'member-recorded',
  Type.Object({
    discord_id: DiscordId,
    guild_id: Type.Optional(DiscordId),
    with_lines: Type.Optional(Type.Boolean()),
  }),
  Type.Array(RecordedSessionSchema),
);

/**
 * svc.transcript.member-forget: the member's lines of one session become REMOVED_LINE_TEXT
 * (rows, content, search, edit history) and their track is deleted (blob and row); the
 * session's summary is dropped and made again. not_found when the member has nothing there;
 * conflict while the session is still recorded.
 */
export const memberForgetRpc = rpc(
  'transcript',
  'member-forget',
  Type.Object({ discord_id: DiscordId, id: Type.String({ minLength: 1, maxLength: 64 }) }),
  Type.Object({ lines: Type.Integer(), tracks: Type.Integer() }),
);

/** A member's part of a session was removed: recaps made from the old content must go. */
export const speakerRemovedEvent = busEvent(
  'transcript',
  'speaker-removed',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), transcript_id: Type.String({ minLength: 1 }) }),
);

/** GET /api/me/recorded */
export const RecordedSessionsSchema = Type.Array(RecordedSessionSchema);

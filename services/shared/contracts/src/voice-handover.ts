import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';

/**
 * A recording handed from the voice-bot process that runs it to its successor (a deploy, a
 * shard moving), without a gap: `svc.voice-bot.handover.<transcript id>`, answered only by the
 * process recording that session. `prepare`: the successor is ready to join; the recorder
 * answers at a pause in the talk, and from then on no longer asks Discord for the channel
 * itself. `joined`: the successor's voice connection is up (Discord moved the bot's voice
 * there); the recorder flushes every stream, puts every final on the bus and marks the
 * session handed over, then answers. `cancel`: the successor could not join; the recorder
 * goes on as before.
 */
export const VoiceHandoverRequestSchema = Type.Object({
  stage: Type.Union([Type.Literal('prepare'), Type.Literal('joined'), Type.Literal('cancel')]),
  /** The successor process (host and pid), for the logs. */
  instance: Type.String({ maxLength: 200 }),
});
export const VoiceHandoverReplySchema = Type.Object({
  /** False: this process no longer records the session (it ended, or went to another successor). */
  ok: Type.Boolean(),
  /** `joined`: when the recorder stopped hearing (what it recorded ends there). */
  suspended_at: Type.Optional(Type.String()),
});
export type VoiceHandoverRequest = Static<typeof VoiceHandoverRequestSchema>;
export type VoiceHandoverReply = Static<typeof VoiceHandoverReplySchema>;

export const voiceHandoverRpc = (transcriptId: string) =>
  rpc('voice-bot', `handover.${transcriptId}`, VoiceHandoverRequestSchema, VoiceHandoverReplySchema);

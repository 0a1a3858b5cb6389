import { Type, type Static } from '@sinclair/typebox';
import { busEvent } from './events.ts';
import { rpc } from './rpc.ts';

/**
 * Usage records: what was transcribed and which AI requests were made, per user. Producers
 * publish them durably (msgId = `record_id`, so a retry records once); the admin-stats
 * service keeps the ledger that `/users/stats` and the admin dashboard read.
 */
export const USAGE_EVENTS_STREAM = 'USAGE_EVENTS';
/** Kept 7 days: the consumer acks within seconds; the window only bounds an outage's backlog. */
export const usageEventsStream = {
  name: USAGE_EVENTS_STREAM,
  subjects: ['evt.usage.>'],
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
};

/** Seconds of audio transcribed for a user: an uploaded recording, or a live session. */
export const transcriptionRecordedEvent = busEvent(
  'usage',
  'transcription-recorded',
  Type.Object({
    /** Unique per usage (e.g. `audio:<transcript id>`); also the message id. */
    record_id: Type.String({ minLength: 1 }),
    owner_id: Type.String({ minLength: 1 }),
    transcript_id: Type.String(),
    source: Type.Union([Type.Literal('audio'), Type.Literal('live')]),
    /** Which speech provider did the work (deepgram, assemblyai). */
    provider: Type.String(),
    seconds: Type.Number({ minimum: 0 }),
    /** ISO time the usage happened; stats windows are counted by it. */
    recorded_at: Type.String(),
  }),
);
export type TranscriptionRecorded = Static<typeof transcriptionRecordedEvent.payload>;

/**
 * One provider stream of one speaker in a live session, once it closed: the seconds it was
 * open, which is what streaming providers bill (five speakers for three hours are fifteen
 * stream-hours). Published by the voice bot; `record_id` is
 * `stream:<transcript id>:<speaker key>:<stream index>`, also the message id.
 */
export const speechStreamRecordedEvent = busEvent(
  'usage',
  'speech-stream-recorded',
  Type.Object({
    record_id: Type.String({ minLength: 1 }),
    owner_id: Type.String({ minLength: 1 }),
    transcript_id: Type.String(),
    /** The speaker (Discord: the user id). */
    speaker_key: Type.String(),
    provider: Type.String(),
    seconds: Type.Number({ minimum: 0 }),
    /** ISO time the stream closed; stats windows are counted by it. */
    recorded_at: Type.String(),
  }),
);
export type SpeechStreamRecorded = Static<typeof speechStreamRecordedEvent.payload>;

/** GET /users/stats: totals for the signed-in user over a date range. */
export const UserStatsSchema = Type.Object({
  transcription_hours: Type.Number(),
  ai_requests_total: Type.Integer(),
});
export type UserStats = Static<typeof UserStatsSchema>;

/**
 * svc.admin-stats.user-stats: the owner's totals from `start` 00:00 UTC to the end of `end`
 * (YYYY-MM-DD, both inclusive).
 */
export const userStatsRpc = rpc(
  'admin-stats',
  'user-stats',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    start: Type.String(),
    end: Type.String(),
  }),
  UserStatsSchema,
);

/** One AI request (chat, a summary, planning), as the admin dashboard and /users/stats count it. */
export const aiRequestRecordedEvent = busEvent(
  'usage',
  'ai-request-recorded',
  Type.Object({
    /** Unique per request; also the message id. */
    record_id: Type.String({ minLength: 1 }),
    user_id: Type.String({ minLength: 1 }),
    request_type: Type.String(),
    /** The session the request was about ('' or absent: none, e.g. planning or a campaign question). */
    transcript_id: Type.Optional(Type.String()),
    model: Type.String(),
    input_tokens: Type.Integer({ minimum: 0 }),
    output_tokens: Type.Integer({ minimum: 0 }),
    /** Rounded to 4 decimals with the prices configured when the request was made. */
    estimated_cost_usd: Type.Number({ minimum: 0 }),
    success: Type.Boolean(),
    processing_time_ms: Type.Integer({ minimum: 0 }),
    created_at: Type.String(),
  }),
);
export type AiRequestRecorded = Static<typeof aiRequestRecordedEvent.payload>;

/**
 * GET /api/transcripts/{id}/usage: what one session cost. Speech: the seconds billed, per
 * speaker stream for a live session (what streaming providers bill), else the seconds of the
 * uploaded recording transcribed; priced at SPEECH_PRICE_PER_MINUTE_USD. AI: the requests made
 * about this session (its recaps, the chat about it), at the prices configured when each was
 * made. The offline fallback costs nothing.
 */
export const SessionUsageSchema = Type.Object({
  transcript_id: Type.String(),
  speech: Type.Object({
    /** 'streams': live, per speaker stream; 'recording': an uploaded recording; 'none'. */
    basis: Type.Union([Type.Literal('streams'), Type.Literal('recording'), Type.Literal('none')]),
    seconds: Type.Number({ minimum: 0 }),
    providers: Type.Array(Type.String()),
    per_speaker: Type.Array(
      Type.Object({ speaker_key: Type.String(), streams: Type.Integer(), seconds: Type.Number() }),
    ),
    price_per_minute_usd: Type.Number({ minimum: 0 }),
    cost_usd: Type.Number({ minimum: 0 }),
  }),
  ai: Type.Object({
    requests: Type.Integer({ minimum: 0 }),
    input_tokens: Type.Integer({ minimum: 0 }),
    output_tokens: Type.Integer({ minimum: 0 }),
    cost_usd: Type.Number({ minimum: 0 }),
    by_type: Type.Array(
      Type.Object({
        request_type: Type.String(),
        requests: Type.Integer(),
        input_tokens: Type.Integer(),
        output_tokens: Type.Integer(),
        cost_usd: Type.Number(),
      }),
    ),
  }),
  total_cost_usd: Type.Number({ minimum: 0 }),
});
export type SessionUsage = Static<typeof SessionUsageSchema>;

/** svc.admin-stats.session-usage: the ledger's records of one session (the caller checked the owner). */
export const sessionUsageRpc = rpc(
  'admin-stats',
  'session-usage',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), transcript_id: Type.String() }),
  SessionUsageSchema,
);

import { Type, type Static } from '@sinclair/typebox';
import { busEvent } from './events.ts';
import { rpc } from './rpc.ts';
import { GroupSchema } from './groups.ts';
import { OwnedIdRequestSchema } from './owner-scoped.ts';
import { TranscriptListItemSchema } from './transcripts.ts';

/**
 * Where a session's AI summary stands: 'none' until one is generated (or when it was written
 * by hand), 'generating' while the summary service works on it, then 'done' or 'failed'.
 */
export const SummaryStatusSchema = TranscriptListItemSchema.properties.summary_status;
export type SummaryStatus = Static<typeof SummaryStatusSchema>;

/** Durable stream of transcript events, published by the transcript service. */
export const TRANSCRIPT_EVENTS_STREAM = 'TRANSCRIPT_EVENTS';
/** Kept 7 days, like the other event streams: it only bounds what an outage leaves behind. */
export const transcriptEventsStream = {
  name: TRANSCRIPT_EVENTS_STREAM,
  subjects: ['evt.transcript.>'],
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
};

/**
 * An ended session has a transcript and may need an automatic summary (created ended by
 * hand, an uploaded recording transcribed, a recording stopped). Published with msgId
 * `summaryMsgId(transcript_id)`, so a session is offered for summary once.
 */
export const transcriptReadyForSummaryEvent = busEvent(
  'transcript',
  'ready-for-summary',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), transcript_id: Type.String({ minLength: 1 }) }),
);
export type TranscriptReadyForSummary = Static<typeof transcriptReadyForSummaryEvent.payload>;
export const summaryMsgId = (transcriptId: string): string => `summary:${transcriptId}`;

/**
 * svc.transcript.claim-summary: marks an ended session without a summary 'generating' so one
 * automatic summary is made for it. `claimed` is false when it has a summary, is active, is
 * already done, or is gone.
 */
export const claimSummaryRpc = rpc(
  'transcript',
  'claim-summary',
  OwnedIdRequestSchema,
  Type.Object({ claimed: Type.Boolean() }),
);

/** svc.transcript.set-summary-status: 'generating' before a generation, 'failed' after one that failed. */
export const setSummaryStatusRpc = rpc(
  'transcript',
  'set-summary-status',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    status: SummaryStatusSchema,
  }),
  Type.Object({ ok: Type.Literal(true) }),
);

/** svc.transcript.set-generated-summary: stores an AI summary (summary and llm_summary) and 'done'. */
export const setGeneratedSummaryRpc = rpc(
  'transcript',
  'set-generated-summary',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    summary: Type.String(),
    llm_summary: Type.String(),
  }),
  TranscriptListItemSchema,
);

/** svc.transcript.llm-summary: the raw AI summary of any owner's session (admins only, checked by the gateway). */
export const getLlmSummaryRpc = rpc(
  'transcript',
  'llm-summary',
  Type.Object({ id: Type.String() }),
  Type.Object({ id: Type.String(), llm_summary: Type.String() }),
);

/** svc.group.set-generated-summary: stores a campaign summary and when it was generated. */
export const setGroupGeneratedSummaryRpc = rpc(
  'group',
  'set-generated-summary',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    summary: Type.String(),
    llm_summary: Type.String(),
  }),
  GroupSchema,
);

/** POST /transcripts/{id}/generate-summary. */
export const GeneratedSummarySchema = Type.Object({ id: Type.String(), summary: Type.String() });
export type GeneratedSummary = Static<typeof GeneratedSummarySchema>;

/** POST /groups/{id}/check-summary. */
export const GroupSummaryCheckSchema = Type.Object({
  group_id: Type.String(),
  summary: Type.String(),
  llm_summary: Type.String(),
  needs_update: Type.Boolean(),
  message: Type.String(),
});
export type GroupSummaryCheck = Static<typeof GroupSummaryCheckSchema>;

/** GET /admin/transcripts/{id}/llm-summary. */
export const LlmSummarySchema = Type.Object({ id: Type.String(), llm_summary: Type.String() });

/** svc.summary.generate-session: generates and stores a summary of one ended session. */
export const generateSessionSummaryRpc = rpc(
  'summary',
  'generate-session',
  OwnedIdRequestSchema,
  GeneratedSummarySchema,
);

/** svc.summary.generate-group: a forced campaign summary (admins); conflict while one is generating. */
export const generateGroupSummaryRpc = rpc('summary', 'generate-group', OwnedIdRequestSchema, GroupSchema);

/** svc.summary.check-group: generates the campaign summary when its sessions' summaries changed. */
export const checkGroupSummaryRpc = rpc(
  'summary',
  'check-group',
  OwnedIdRequestSchema,
  GroupSummaryCheckSchema,
);

/** Generation calls wait for the model: longer than the bus's default 5 s. */
export const SUMMARY_CALL_TIMEOUT_MS = 120_000;

/**
 * The first line of what the built-in offline fallback writes (a session digest, a campaign
 * digest, a chat or planning reply): an HTML comment, so it never shows as text (markdown
 * drops it, previews strip it), and the app shows its offline notice once above the text.
 */
export const OFFLINE_AI_MARKER = '<!-- chronicler:offline -->';
/** The README section that tells how to connect a model. */
export const AI_SETUP_SECTION = 'Connecting an AI model';
/** The one line shown wherever offline AI output appears. */
export const AI_CONNECT_HINT =
  'Connect a model for written recaps and answers: a local Ollama or any OpenAI-compatible server, with OPENAI_BASE_URL and OPENAI_MODEL.';

/** Whether a text was written by the offline fallback. */
export const isOfflineAiText = (text: string): boolean => text.trimStart().startsWith(OFFLINE_AI_MARKER);
/** The text without the offline marker. */
export const withoutOfflineMarker = (text: string): string =>
  isOfflineAiText(text) ? text.trimStart().slice(OFFLINE_AI_MARKER.length).trimStart() : text;

import { Type, type Static } from '@sinclair/typebox';
import {
  LIST_PAGE_MAX,
  OkSchema,
  OwnedIdRequestSchema,
  OwnerRequestSchema,
  PageRequestFields,
  pageOf,
} from './owner-scoped.ts';
import { rpc } from './rpc.ts';

/**
 * Longest session name in UTF-16 units (the specification sets none; this keeps names
 * displayable and lists within reason). The services count after trimming; the gateway
 * and the web inputs refuse longer input outright.
 */
export const SESSION_NAME_MAX = 200;

/** Longest session summary in characters (typed, uploaded with a recording, or generated). */
export const SUMMARY_MAX = 10_000;

/** Longest session transcript in characters (pasted, edited line by line, or transcribed). */
export const TRANSCRIPT_MAX = 500_000;

/**
 * A session name as the gateway accepts it in a request body: optional (the service answers
 * the specification's message for a missing one) and at most SESSION_NAME_MAX characters.
 * `title` names the field in the gateway's refusal.
 */
export const SessionNameField = Type.Optional(
  Type.String({ maxLength: SESSION_NAME_MAX, title: 'Session name' }),
);

/** How a session came to be: recorded live by the bot, typed or pasted, or an uploaded recording. */
export const TranscriptSourceSchema = Type.Union([
  Type.Literal('live'),
  Type.Literal('manual'),
  Type.Literal('audio'),
]);
export type TranscriptSource = Static<typeof TranscriptSourceSchema>;

/**
 * Where the transcription of an uploaded recording stands. 'none' for sessions that have no
 * recording to transcribe (live and manual ones); an audio session goes queued -> processing
 * -> completed, or failed with `transcription_error` saying why (and no transcript written).
 */
export const TranscriptionStatusSchema = Type.Union([
  Type.Literal('none'),
  Type.Literal('queued'),
  Type.Literal('processing'),
  Type.Literal('completed'),
  Type.Literal('failed'),
]);
export type TranscriptionStatus = Static<typeof TranscriptionStatusSchema>;

/** Fields shared by list items and full sessions that say where a session came from. */
const SessionOriginFields = {
  source: TranscriptSourceSchema,
  transcription_status: TranscriptionStatusSchema,
  /**
   * '' unless transcription_status is 'failed'; for a live session, why the pipeline ended it
   * early (the speech provider stayed down), its lines up to then kept.
   */
  transcription_error: Type.String(),
  /** Length of the uploaded recording in seconds (0 when none, or not transcribed yet). */
  audio_seconds: Type.Number(),
  /** Where the session's AI summary stands (see SummaryStatusSchema). */
  summary_status: Type.Union([
    Type.Literal('none'),
    Type.Literal('generating'),
    Type.Literal('done'),
    Type.Literal('failed'),
  ]),
};

/** What a list item and a whole session both carry. */
const SessionFields = {
  id: Type.String(),
  name: Type.String(),
  session_timestamp: Type.String(),
  created_at: Type.String(),
  last_activity: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('ended')]),
  group_id: Type.String(),
  summary: Type.String(),
  ...SessionOriginFields,
};

/**
 * A session in lists (GET /transcripts): everything but the transcript content, which a
 * list never reads. `group_id` is '' for an ungrouped session; `preview` is the first 100
 * characters of the content plus an ellipsis, computed when the content is written.
 */
export const TranscriptListItemSchema = Type.Object({
  ...SessionFields,
  preview: Type.String(),
});
export type TranscriptListItem = Static<typeof TranscriptListItemSchema>;

/** The longest search text a session list accepts (GET /transcripts?q=). */
export const LIST_SEARCH_MAX = 200;

/**
 * svc.transcript.list-page: the owner's sessions, newest first by session_timestamp (ties
 * broken by created_at, then id), one page at a time; with `group_id`, only that group's;
 * with `ungrouped`, only those in no group; with `search`, only those whose name or preview
 * holds it (any case), so that a browser pages through the matches instead of the library.
 */
const ListPageRequestFields = {
  ...PageRequestFields,
  group_id: Type.Optional(Type.String()),
  ungrouped: Type.Optional(Type.Boolean()),
  search: Type.Optional(Type.String()),
};

export const listTranscriptsPageRpc = rpc(
  'transcript',
  'list-page',
  Type.Object(ListPageRequestFields),
  pageOf(TranscriptListItemSchema),
);

/**
 * svc.transcript.list-page-if-changed: the same page as list-page, for a caller that keeps
 * what it read (the gateway's content cache, issue 46), with the `version` of the page: it
 * changes when any session on the page is written, when one joins or leaves the page, and
 * when whether a next page follows changes. With `known` equal to the current version the
 * answer is `unchanged` and carries no page. The version is opaque to callers; a reply puts
 * it first so that the page after it can be passed on as the JSON text it is.
 */
export const listTranscriptsPageIfChangedRpc = rpc(
  'transcript',
  'list-page-if-changed',
  Type.Object({ ...ListPageRequestFields, known: Type.Optional(Type.String({ maxLength: 64 })) }),
  Type.Union([
    Type.Object({ version: Type.String(), unchanged: Type.Literal(true) }),
    Type.Object({ version: Type.String(), page: pageOf(TranscriptListItemSchema) }),
  ]),
);

/** svc.transcript.group-members: the owner's grouped session ids, by group id; `group_ids` narrows it. */
export const groupMembersRpc = rpc(
  'transcript',
  'group-members',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    group_ids: Type.Optional(Type.Array(Type.String(), { maxItems: LIST_PAGE_MAX })),
  }),
  Type.Record(Type.String(), Type.Array(Type.String())),
);

/** One session with its content (GET /transcripts/{id}). */
export const TranscriptSchema = Type.Object({
  ...SessionFields,
  content: Type.String(),
  /**
   * A failed audio session whose recording is still stored: POST
   * /transcripts/{id}/retry-transcription queues it again.
   */
  transcription_retryable: Type.Boolean(),
  /** The summary was made before a line of the transcript was edited or a speaker renamed. */
  summary_outdated: Type.Boolean(),
});
export type Transcript = Static<typeof TranscriptSchema>;

/**
 * svc.transcript.get: one of the owner's sessions with its content (of any size: see the kit's
 * call). The content shows the speakers' display names (what summaries, chat and planning
 * read); `raw` answers the stored labels instead (the viewer and the session form, which
 * apply the names themselves and must never write them into the stored text).
 */
export const getTranscriptRpc = rpc(
  'transcript',
  'get',
  Type.Object({ ...OwnedIdRequestSchema.properties, raw: Type.Optional(Type.Boolean()) }),
  TranscriptSchema,
);

/**
 * svc.transcript.get-if-changed: GET /transcripts/{id} (stored labels, as `raw`), for a
 * caller that keeps what it read (the gateway's content cache, issue 46). `version` names the
 * stored state a reply's transcript is: null while the session is recorded (its content is
 * the lines stored so far, which change without the session's row) and then never kept.
 * With `known` equal to the current version the answer is `unchanged` and carries no
 * transcript, after the same owner check as a read. The version is opaque to callers; a
 * reply puts it first so that the transcript after it can be passed on as the JSON text it is.
 */
export const getTranscriptIfChangedRpc = rpc(
  'transcript',
  'get-if-changed',
  Type.Object({ ...OwnedIdRequestSchema.properties, known: Type.Optional(Type.String({ maxLength: 64 })) }),
  Type.Union([
    Type.Object({ version: Type.Union([Type.String(), Type.Null()]), unchanged: Type.Literal(true) }),
    Type.Object({ version: Type.Union([Type.String(), Type.Null()]), transcript: TranscriptSchema }),
  ]),
);

/** svc.transcript.exists: whether the id is one of the owner's sessions, without reading its content. */
export const transcriptExistsRpc = rpc(
  'transcript',
  'exists',
  OwnedIdRequestSchema,
  Type.Object({ exists: Type.Boolean() }),
);

/**
 * Form fields are optional strings here so that the service answers the specification's
 * messages (a missing name is 'Session name is required', not a schema error).
 */
export const CreateManualRequestSchema = Type.Object({
  owner_id: Type.String({ minLength: 1 }),
  name: Type.Optional(Type.String()),
  session_date: Type.Optional(Type.String()),
  summary: Type.Optional(Type.String()),
  transcript: Type.Optional(Type.String()),
  group_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** svc.transcript.create-manual: a new ended session typed or pasted by the owner. */
export const createManualTranscriptRpc = rpc(
  'transcript',
  'create-manual',
  CreateManualRequestSchema,
  TranscriptListItemSchema,
);

/** svc.transcript.update: name and summary always; session_date and transcript when changed. */
export const updateTranscriptRpc = rpc(
  'transcript',
  'update',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    name: Type.Optional(Type.String()),
    summary: Type.Optional(Type.String()),
    session_date: Type.Optional(Type.String()),
    transcript: Type.Optional(Type.String()),
  }),
  TranscriptListItemSchema,
);

export const renameTranscriptRpc = rpc(
  'transcript',
  'rename',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    name: Type.Optional(Type.String()),
  }),
  TranscriptListItemSchema,
);

/** svc.transcript.assign-group: group_id null removes the session from its group. */
export const assignTranscriptGroupRpc = rpc(
  'transcript',
  'assign-group',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    group_id: Type.Union([Type.String(), Type.Null()]),
  }),
  TranscriptListItemSchema,
);

/** svc.transcript.delete: refused while the session is active. */
export const deleteTranscriptRpc = rpc('transcript', 'delete', OwnedIdRequestSchema, OkSchema);

/**
 * A session being recorded now (GET /transcripts/active). The counters are the live
 * pipeline's; they are zero while sessions are listed from the transcript store alone.
 */
export const ActiveSessionSchema = Type.Object({
  session_id: Type.String(),
  transcript_id: Type.String(),
  start_time: Type.String(),
  created_at: Type.String(),
  last_activity: Type.String(),
  is_active: Type.Literal(true),
  final_results: Type.Integer(),
  interim_results: Type.Integer(),
  connected_clients: Type.Integer(),
});
export type ActiveSession = Static<typeof ActiveSessionSchema>;

/** svc.transcript.list-active: the owner's sessions whose status is 'active', newest first. */
export const listActiveTranscriptsRpc = rpc(
  'transcript',
  'list-active',
  OwnerRequestSchema,
  Type.Array(ActiveSessionSchema),
);

/** svc.transcript.update-summary: the summary edited on the viewer; refused while recording. */
export const updateTranscriptSummaryRpc = rpc(
  'transcript',
  'update-summary',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    summary: Type.Optional(Type.String()),
  }),
  TranscriptListItemSchema,
);

export const NotesSchema = Type.Object({ content: Type.String() });

export const getNotesRpc = rpc('transcript', 'get-notes', OwnedIdRequestSchema, NotesSchema);

export const putNotesRpc = rpc(
  'transcript',
  'put-notes',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), id: Type.String(), content: Type.String() }),
  NotesSchema,
);

import { Type, type Static } from '@sinclair/typebox';
import { busEvent } from './events.ts';
import { rpc } from './rpc.ts';

/** Who asks: every transcript and group call is made for one owner, never across owners. */
export const OwnerRequestSchema = Type.Object({ owner_id: Type.String({ minLength: 1 }) });

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
  /** '' unless transcription_status is 'failed'. */
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

/**
 * A session in lists (GET /transcripts): everything but the transcript content, which a
 * list never reads. `group_id` is '' for an ungrouped session; `preview` is the first 100
 * characters of the content plus an ellipsis, computed when the content is written.
 */
export const TranscriptListItemSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  session_timestamp: Type.String(),
  created_at: Type.String(),
  last_activity: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('ended')]),
  group_id: Type.String(),
  summary: Type.String(),
  preview: Type.String(),
  ...SessionOriginFields,
});
export type TranscriptListItem = Static<typeof TranscriptListItemSchema>;

/** A group (campaign). `id` and `group_id` are the same value; routes use group_id. */
export const GroupSchema = Type.Object({
  id: Type.String(),
  group_id: Type.String(),
  name: Type.String(),
  session_ids: Type.Array(Type.String()),
  summary: Type.String(),
  llm_summary: Type.String(),
  summary_generated_at: Type.Union([Type.String(), Type.Null()]),
});
export type Group = Static<typeof GroupSchema>;

/** svc.transcript.list: the owner's sessions, newest first by session_timestamp. */
export const listTranscriptsRpc = rpc(
  'transcript',
  'list',
  OwnerRequestSchema,
  Type.Array(TranscriptListItemSchema),
);

/**
 * svc.transcript.list-page: the owner's sessions in the same order (ties broken by id), one
 * page at a time, for callers that may see many sessions: a whole list of 10,000 sessions,
 * or of a few dozen with 10,000-character summaries, exceeds one bus message (1 MiB).
 * `after` is the previous page's `next`; `next` is null after the last page.
 */
export const listTranscriptsPageRpc = rpc(
  'transcript',
  'list-page',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), after: Type.Optional(Type.String()) }),
  Type.Object({
    items: Type.Array(TranscriptListItemSchema),
    next: Type.Union([Type.String(), Type.Null()]),
  }),
);

/** svc.transcript.group-members: the owner's grouped session ids, by group id. */
export const groupMembersRpc = rpc(
  'transcript',
  'group-members',
  OwnerRequestSchema,
  Type.Record(Type.String(), Type.Array(Type.String())),
);

/** svc.group.list: the owner's groups with their session ids. */
export const listGroupsRpc = rpc('group', 'list', OwnerRequestSchema, Type.Array(GroupSchema));

/** The same owner-scoped request with the id of one session or group. */
export const OwnedIdRequestSchema = Type.Object({
  owner_id: Type.String({ minLength: 1 }),
  id: Type.String(),
});

/** One session with its content (GET /transcripts/{id}). */
export const TranscriptSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  session_timestamp: Type.String(),
  created_at: Type.String(),
  last_activity: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('ended')]),
  group_id: Type.String(),
  summary: Type.String(),
  content: Type.String(),
  ...SessionOriginFields,
});
export type Transcript = Static<typeof TranscriptSchema>;

/**
 * A transcript can be larger than one bus message (1 MiB): above TRANSCRIPT_INLINE_BYTES the
 * text travels through the blob store (bucket TRANSCRIPT_BLOB_BUCKET) and the message
 * carries its name instead; the receiver reads the blob and deletes it.
 */
export const TRANSCRIPT_BLOB_BUCKET = 'transcript-transfer';
export const TRANSCRIPT_INLINE_BYTES = 256 * 1024;

/** svc.transcript.get: one of the owner's sessions with its content. */
export const getTranscriptRpc = rpc(
  'transcript',
  'get',
  OwnedIdRequestSchema,
  Type.Composite([
    Type.Omit(TranscriptSchema, ['content']),
    Type.Object({ content: Type.Optional(Type.String()), content_blob: Type.Optional(Type.String()) }),
  ]),
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
  transcript_blob: Type.Optional(Type.String()),
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
    transcript_blob: Type.Optional(Type.String()),
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

export const OkSchema = Type.Object({ ok: Type.Literal(true) });

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

export const createGroupRpc = rpc(
  'group',
  'create',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), name: Type.Optional(Type.String()) }),
  GroupSchema,
);

export const updateGroupRpc = rpc(
  'group',
  'update',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    name: Type.Optional(Type.String()),
    summary: Type.Optional(Type.String()),
  }),
  GroupSchema,
);

/** svc.group.delete: deletes the group, then publishes evt.group.deleted (durable). */
export const deleteGroupRpc = rpc('group', 'delete', OwnedIdRequestSchema, OkSchema);

/** svc.group.exists: whether the id is one of the owner's groups (for assign-group). */
export const groupExistsRpc = rpc(
  'group',
  'exists',
  OwnedIdRequestSchema,
  Type.Object({ exists: Type.Boolean() }),
);

/** Durable stream of group events, published by the group service. */
export const GROUP_EVENTS_STREAM = 'GROUP_EVENTS';
export const groupDeletedEvent = busEvent(
  'group',
  'deleted',
  Type.Object({ group_id: Type.String(), owner_id: Type.String() }),
);
/**
 * Kept 7 days: consumers ack within seconds, and the window only bounds what an outage
 * can leave behind (the in-process bus holds a stream's messages in memory until then).
 */
export const groupEventsStream = {
  name: GROUP_EVENTS_STREAM,
  subjects: ['evt.group.>'],
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
};

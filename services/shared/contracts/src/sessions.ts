import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';

/** Who asks: every transcript and group call is made for one owner, never across owners. */
export const OwnerRequestSchema = Type.Object({ owner_id: Type.String({ minLength: 1 }) });

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

/** svc.transcript.group-members: the owner's grouped session ids, by group id. */
export const groupMembersRpc = rpc(
  'transcript',
  'group-members',
  OwnerRequestSchema,
  Type.Record(Type.String(), Type.Array(Type.String())),
);

/** svc.group.list: the owner's groups with their session ids. */
export const listGroupsRpc = rpc('group', 'list', OwnerRequestSchema, Type.Array(GroupSchema));

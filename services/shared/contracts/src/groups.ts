import { Type, type Static } from '@sinclair/typebox';
import { busEvent } from './events.ts';
import { OkSchema, OwnedIdRequestSchema, PageRequestFields, pageOf } from './owner-scoped.ts';
import { rpc } from './rpc.ts';

/** Longest group (campaign) name, counted like SESSION_NAME_MAX. */
export const GROUP_NAME_MAX = 100;

/** A group name as the gateway accepts it in a request body, like SessionNameField. */
export const GroupNameField = Type.Optional(Type.String({ maxLength: GROUP_NAME_MAX, title: 'Group name' }));

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

/** svc.group.list: one page of the owner's groups, oldest first (ties by id), with their session ids. */
export const listGroupsRpc = rpc('group', 'list', Type.Object(PageRequestFields), pageOf(GroupSchema));

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

/** svc.group.get: one of the owner's groups with its session ids (not_found for any other). */
export const getGroupRpc = rpc('group', 'get', OwnedIdRequestSchema, GroupSchema);

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

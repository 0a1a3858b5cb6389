import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';

/** The fixed text the planning workspace's 'SUGGESTIONS' button sends. */
export const PLANNING_SUGGESTIONS_MESSAGE = 'GENERATE SESSION SUGGESTIONS';

/** Longest planning chat message accepted, in characters. */
export const PLANNING_MESSAGE_MAX = 10_000;
/**
 * Longest planning document sent as editor context, in characters: the whole send request
 * (document, selection and message) must fit one bus message (1 MiB) in any script.
 */
export const PLANNING_DOCUMENT_MAX = 200_000;
/**
 * The history a socket receives on connect: the most recent 100 messages of the group,
 * oldest first (storage keeps all of them), so one frame stays bounded.
 */
export const PLANNING_HISTORY_LIMIT = 100;
/**
 * How long the gateway waits for a planning reply: a model call may take its full timeout
 * and be retried (OPENAI_TIMEOUT_MS, OPENAI_MAX_RETRIES), far beyond the bus default.
 */
export const PLANNING_SEND_TIMEOUT_MS = 10 * 60_000;

/** A planning chat message: id, role (user or assistant), content, timestamp (ISO). */
export const PlanningMessageSchema = Type.Object({
  id: Type.String(),
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]),
  content: Type.String(),
  timestamp: Type.String(),
});
export type PlanningMessage = Static<typeof PlanningMessageSchema>;

/** Character offsets (start, end) of the selection in the document's text. */
export const PlanningSelectionSchema = Type.Object({
  start: Type.Integer({ minimum: 0 }),
  end: Type.Integer({ minimum: 0 }),
});

/** What the planning editor sends with each message: content, selection, selectedText. */
export const PlanningEditorContextSchema = Type.Object({
  content: Type.String({ maxLength: PLANNING_DOCUMENT_MAX }),
  selection: Type.Union([PlanningSelectionSchema, Type.Null()]),
  selectedText: Type.String({ maxLength: PLANNING_DOCUMENT_MAX }),
});
export type PlanningEditorContext = Static<typeof PlanningEditorContextSchema>;

const OwnedGroupRequest = {
  owner_id: Type.String({ minLength: 1 }),
  group_id: Type.String({ minLength: 1 }),
};

/** svc.planning.history: the owner's planning messages of one of their groups, oldest first. */
export const planningHistoryRpc = rpc(
  'planning',
  'history',
  Type.Object(OwnedGroupRequest),
  Type.Object({ messages: Type.Array(PlanningMessageSchema) }),
);

/**
 * svc.planning.send: asks the AI about the owner's group with the editor's context, stores
 * the user's message and the reply, and answers the reply. An unknown group (or another
 * user's) answers not_found and stores nothing.
 */
export const planningSendRpc = rpc(
  'planning',
  'send',
  Type.Object({
    ...OwnedGroupRequest,
    content: Type.String(),
    editor: Type.Union([PlanningEditorContextSchema, Type.Null()]),
  }),
  PlanningMessageSchema,
);

/** What the client sends on /api/ws/planning: a chat message with the editor's context. */
export const PlanningClientFrameSchema = Type.Object({
  type: Type.Literal('chat_message'),
  content: Type.String(),
  canvasContent: Type.Optional(Type.String()),
  selection: Type.Optional(Type.Union([PlanningSelectionSchema, Type.Null()])),
  selectedText: Type.Optional(Type.String()),
});
export type PlanningClientFrame = Static<typeof PlanningClientFrameSchema>;

/** What the server sends on /api/ws/planning: the history on connect, each reply, or an error. */
export type PlanningServerFrame =
  | { type: 'chat_history'; messages: PlanningMessage[] }
  | { type: 'message'; message: PlanningMessage }
  | { type: 'error'; error: string };

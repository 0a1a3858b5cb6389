import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';

/** A chat turn: role user, assistant or system, and its text. */
export const ChatMessageSchema = Type.Object({
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
  content: Type.String(),
});
export type ChatMessage = Static<typeof ChatMessageSchema>;

/** The chat's temperature when the client names none. */
export const CHAT_DEFAULT_TEMPERATURE = 0.7;

/** The longest question one chat message may carry (a request body is bounded). */
export const CHAT_MESSAGE_MAX_CHARS = 20_000;

/** How many of the latest turns go to the model with a question (older ones add cost, not context). */
export const CHAT_HISTORY_TURNS = 20;

/**
 * A model answer may take a while (a slow model, retries with backoff): callers of send and
 * answer wait this long for the reply instead of the bus's default few seconds.
 */
export const CHAT_REPLY_TIMEOUT_MS = 10 * 60_000;

/** What the chat drawer's ADVENTURE button sends: a fixed message asking for adventure content quickly. */
export const EMERGENCY_ADVENTURE_MESSAGE =
  'EMERGENCY: My players went off-script! Give me adventure content I can use right now: a quick encounter, an NPC with a name and a hook, and a twist, based on this session.';

const OwnerTranscript = {
  owner_id: Type.String({ minLength: 1 }),
  transcript_id: Type.String(),
};

/** svc.chat.history: the owner's stored conversation about one of their transcripts, oldest first. */
export const chatHistoryRpc = rpc(
  'chat',
  'history',
  Type.Object(OwnerTranscript),
  Type.Object({ messages: Type.Array(ChatMessageSchema) }),
);

/**
 * svc.chat.send: stores the question, answers it from the transcript and the stored
 * conversation, stores and returns the answer.
 */
export const chatSendRpc = rpc(
  'chat',
  'send',
  Type.Object({ ...OwnerTranscript, content: Type.String() }),
  Type.Object({ message: ChatMessageSchema }),
);

/**
 * svc.chat.answer (POST /chat): answers the last user message of `messages`, the earlier ones
 * being the conversation so far as the client holds it; nothing is stored.
 */
export const chatAnswerRpc = rpc(
  'chat',
  'answer',
  Type.Object({
    ...OwnerTranscript,
    messages: Type.Array(ChatMessageSchema),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
  }),
  Type.Object({ response: Type.String() }),
);

/** POST /chat body. `model` is accepted for compatibility; the configured model answers. */
export const ChatRequestSchema = Type.Object({
  messages: Type.Array(ChatMessageSchema),
  transcript_id: Type.String(),
  model: Type.Optional(Type.String()),
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2 })),
});
export type ChatRequest = Static<typeof ChatRequestSchema>;

export const ChatResponseSchema = Type.Object({ response: Type.String() });

/** /ws/chat frames. The client sends chat_message frames. */
export const ChatClientFrameSchema = Type.Object({
  type: Type.Literal('chat_message'),
  content: Type.String(),
});

/** What the chat socket sends. */
export type ChatServerFrame =
  | { type: 'chat_history'; messages: ChatMessage[] }
  | { type: 'message'; message: ChatMessage }
  | { type: 'error'; error: string };

/** The close reason of a client leaving the chat (sent with code 1000). */
export const CHAT_CLIENT_CLOSE_REASON = 'Client navigated away';

import {
  CHAT_HISTORY_TURNS,
  CHAT_REPLY_TIMEOUT_MS,
  ChatClientFrameSchema,
  chatAnswerRpc,
  chatHistoryRpc,
  ChatRequestSchema,
  ChatResponseSchema,
  chatSendRpc,
  type ChatMessage,
  type ChatRequest,
  type ChatServerFrame,
} from '@chronicler/contracts';
import { assertValid, call, httpStatusFor, ServiceError } from '@chronicler/kit';
import type { WebSocket } from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { handshakeToken, requireAuth } from '../../plugins/auth.ts';

const SocketQuery = Type.Object({
  token: Type.Optional(Type.String()),
  transcript_id: Type.Optional(Type.String()),
});
type SocketQuery = typeof SocketQuery.static;

/** A service error's message when it is meant for the user (below 500, or no model answering), else a generic one. */
function userMessage(err: unknown): string {
  if (err instanceof ServiceError && httpStatusFor[err.code] < 500) return err.message;
  if (err instanceof ServiceError && (err.code === 'unavailable' || err.code === 'timeout'))
    return err.message;
  return 'Internal server error';
}

/**
 * POST /api/chat (01 §7) and the chat socket /api/ws/chat?token=&transcript_id= (02 §7), both
 * about one of the signed-in user's transcripts. The gateway keeps no state: it relays to the
 * chat service, which owns the conversations.
 */
export default async function chatRoutes(app: FastifyInstance): Promise<void> {
  const bus = app.ctx.bus;

  app.post<{ Body: ChatRequest }>(
    '/chat',
    {
      preHandler: requireAuth,
      schema: { body: ChatRequestSchema, response: { 200: ChatResponseSchema } },
    },
    (req) =>
      // `model` is accepted and ignored: the chat model is configuration (OPENAI_MODEL), the
      // same for every client (01 §9 fixes it to one model), never the caller's choice.
      call(
        bus,
        chatAnswerRpc,
        {
          owner_id: req.user!.id,
          transcript_id: req.body.transcript_id,
          // The question and the turns the model would see anyway: a long conversation must
          // not outgrow one bus message.
          messages: req.body.messages.slice(-(CHAT_HISTORY_TURNS + 1)),
          temperature: req.body.temperature,
        },
        { timeoutMs: CHAT_REPLY_TIMEOUT_MS },
      ),
  );

  // The history read during the handshake, handed to the socket handler that follows it.
  const historyOf = new Map<string, ChatMessage[]>();
  app.addHook('onResponse', async (req) => {
    historyOf.delete(req.id);
  });

  app.get<{ Querystring: SocketQuery }>(
    '/ws/chat',
    {
      websocket: true,
      // The guard wants a header or cookie token; a browser socket carries it in the query.
      config: { public: true },
      schema: { querystring: SocketQuery },
      // Refused before the upgrade (401 without a valid token, 404 for a transcript that is
      // not the user's), so a refused client never sees an open socket.
      preValidation: async (req, reply) => {
        const user = await app.authenticateHandshake(
          handshakeToken({ query: req.query as Record<string, unknown>, cookies: req.cookies }),
        );
        if (!user) return reply.code(401).send({ detail: 'Authentication required' });
        const transcriptId = req.query.transcript_id ?? '';
        if (!transcriptId) return reply.code(400).send({ detail: 'transcript_id is required' });
        try {
          const { messages } = await call(bus, chatHistoryRpc, {
            owner_id: user.id,
            transcript_id: transcriptId,
          });
          req.user = user;
          historyOf.set(req.id, messages);
        } catch (err) {
          if (err instanceof ServiceError) {
            return reply.code(httpStatusFor[err.code]).send({ detail: userMessage(err) });
          }
          throw err;
        }
      },
    },
    (socket: WebSocket, req) => {
      const ownerId = req.user!.id;
      const transcriptId = req.query.transcript_id!;
      const sendFrame = (frame: ChatServerFrame) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
      };
      sendFrame({ type: 'chat_history', messages: historyOf.get(req.id) ?? [] });
      historyOf.delete(req.id);

      const answer = async (raw: string) => {
        let content: string;
        try {
          const parsed: unknown = JSON.parse(raw);
          assertValid(ChatClientFrameSchema, parsed, 'message');
          content = (parsed as { content: string }).content;
        } catch (err) {
          req.log.warn({ err }, 'chat frame refused');
          return sendFrame({
            type: 'error',
            error: err instanceof ServiceError ? err.message : 'Invalid JSON',
          });
        }
        try {
          const { message } = await call(
            bus,
            chatSendRpc,
            { owner_id: ownerId, transcript_id: transcriptId, content },
            { timeoutMs: CHAT_REPLY_TIMEOUT_MS },
          );
          sendFrame({ type: 'message', message });
        } catch (err) {
          if (!(err instanceof ServiceError) || httpStatusFor[err.code] >= 500) {
            req.log.error({ err }, 'chat message failed');
          }
          sendFrame({ type: 'error', error: userMessage(err) });
        }
      };

      // One question at a time per socket, in the order sent: each sees the previous answer.
      let queue = Promise.resolve();
      socket.on('message', (data: Buffer) => {
        const raw = data.toString('utf8');
        queue = queue.then(() => answer(raw));
      });
    },
  );
}

import {
  CHAT_HISTORY_TURNS,
  CHAT_REPLY_TIMEOUT_MS,
  ChatClientFrameSchema,
  chatAnswerRpc,
  chatHistoryRpc,
  ChatRequestSchema,
  ChatResponseSchema,
  chatSendRpc,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { registerRelaySocket } from '../../lib/relay-socket.ts';
import { requireAuth } from '../../plugins/auth.ts';

/**
 * POST /api/chat and the chat socket /api/ws/chat?token=&transcript_id= (token: a one-time socket code), both
 * about one of the signed-in user's transcripts. The gateway keeps no state: it relays to the
 * chat service, which owns the conversations.
 */
export default async function chatRoutes(app: FastifyInstance): Promise<void> {
  const bus = app.ctx.bus;

  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/chat',
    {
      preHandler: requireAuth,
      schema: { body: ChatRequestSchema, response: { 200: ChatResponseSchema } },
    },
    (req) =>
      // `model` is accepted and ignored: the chat model is configuration (OPENAI_MODEL), the
      // same for every client (the product uses one fixed model), never the caller's choice.
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

  // /api/ws/chat?token=&transcript_id= (token: a one-time socket code): questions about one of the user's transcripts.
  registerRelaySocket(app, {
    path: '/ws/chat',
    idParam: 'transcript_id',
    frameSchema: ChatClientFrameSchema,
    history: async (user, transcriptId) =>
      (await call(bus, chatHistoryRpc, { owner_id: user.id, transcript_id: transcriptId })).messages,
    answer: async (user, transcriptId, frame: { content: string }) =>
      (
        await call(
          bus,
          chatSendRpc,
          { owner_id: user.id, transcript_id: transcriptId, content: frame.content },
          { timeoutMs: CHAT_REPLY_TIMEOUT_MS },
        )
      ).message,
  });
}

import {
  PLANNING_SEND_TIMEOUT_MS,
  PlanningClientFrameSchema,
  planningHistoryRpc,
  planningSendRpc,
  type PlanningClientFrame,
  type PlanningMessage,
  type PlanningServerFrame,
} from '@chronicler/contracts';
import { assertValid, call, httpStatusFor, ServiceError } from '@chronicler/kit';
import type { WebSocket } from '@fastify/websocket';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { handshakeToken } from '../../plugins/auth.ts';

const Query = Type.Object({
  token: Type.Optional(Type.String()),
  group_id: Type.Optional(Type.String()),
});
type Query = typeof Query.static;

/** A service error's message when it is meant for the user (below 500), else a generic one. */
function userMessage(err: unknown): string {
  if (err instanceof ServiceError && httpStatusFor[err.code] < 500) return err.message;
  if (err instanceof ServiceError && (err.code === 'unavailable' || err.code === 'timeout'))
    return err.message;
  return 'Internal server error';
}

/**
 * /api/ws/planning?token=&group_id= (02 §7): the planning chat of one of the user's groups.
 * The handshake is refused (401, 404) before the upgrade, so a refused client never sees an
 * open socket. The gateway keeps no state: it relays frames to the planning service.
 */
export default async function planningRoutes(app: FastifyInstance): Promise<void> {
  const bus = app.ctx.bus;
  // The history read during the handshake, handed to the socket handler that follows it.
  const historyOf = new WeakMap<FastifyRequest, PlanningMessage[]>();

  app.get<{ Querystring: Query }>(
    '/ws/planning',
    {
      websocket: true,
      // The guard wants a header or cookie token; a browser socket carries it in the query.
      config: { public: true },
      schema: { querystring: Query },
      preValidation: async (req, reply) => {
        const user = await app.authenticateHandshake(
          handshakeToken({ query: req.query as Record<string, unknown>, cookies: req.cookies }),
        );
        if (!user) return reply.code(401).send({ detail: 'Authentication required' });
        const groupId = req.query.group_id ?? '';
        if (!groupId) return reply.code(400).send({ detail: 'group_id is required' });
        try {
          const { messages } = await call(bus, planningHistoryRpc, { owner_id: user.id, group_id: groupId });
          req.user = user;
          historyOf.set(req, messages);
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
      const groupId = req.query.group_id!;
      const sendFrame = (frame: PlanningServerFrame) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
      };
      sendFrame({ type: 'chat_history', messages: historyOf.get(req) ?? [] });

      const answer = async (raw: string) => {
        let frame: PlanningClientFrame;
        try {
          const parsed: unknown = JSON.parse(raw);
          assertValid(PlanningClientFrameSchema, parsed, 'message');
          frame = parsed as PlanningClientFrame;
        } catch (err) {
          const error = err instanceof ServiceError ? err.message : 'Invalid JSON';
          req.log.warn({ reason: error }, 'planning frame refused');
          return sendFrame({ type: 'error', error });
        }
        try {
          const message = await call(
            bus,
            planningSendRpc,
            {
              owner_id: ownerId,
              group_id: groupId,
              content: frame.content,
              editor: {
                content: frame.canvasContent ?? '',
                selection: frame.selection ?? null,
                selectedText: frame.selectedText ?? '',
              },
            },
            { timeoutMs: PLANNING_SEND_TIMEOUT_MS },
          );
          sendFrame({ type: 'message', message });
        } catch (err) {
          if (!(err instanceof ServiceError) || httpStatusFor[err.code] >= 500) {
            req.log.error({ err }, 'planning message failed');
          }
          sendFrame({ type: 'error', error: userMessage(err) });
        }
      };

      // One message at a time per socket, in the order sent: replies come back in order.
      let queue = Promise.resolve();
      socket.on('message', (data: Buffer) => {
        const raw = data.toString('utf8');
        queue = queue.then(() => answer(raw));
      });
    },
  );
}

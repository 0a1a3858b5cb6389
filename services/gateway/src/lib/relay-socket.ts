import type { AuthUser } from '@chronicler/contracts';
import { assertValid, httpStatusFor, ServiceError } from '@chronicler/kit';
import type { WebSocket } from '@fastify/websocket';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { publicMessage } from '../plugins/errors.ts';

/**
 * A service error's message when it is meant for the user (below 500, or no model
 * answering), else a generic one; never one that names a bus subject (the same rule as
 * the HTTP errors).
 */
export function userMessage(err: unknown): string {
  if (err instanceof ServiceError) return publicMessage(err);
  return 'Internal server error';
}

export interface RelaySocketOptions<Frame, Message, History> {
  /** e.g. '/ws/chat'. */
  path: string;
  /** The query parameter naming what the socket is about (a transcript, a group). */
  idParam: string;
  /** The client's frame, validated before it is relayed. */
  frameSchema: TSchema;
  /** Reads the history; throws the service's not_found for an object that is not the user's. */
  history(user: AuthUser, id: string): Promise<History>;
  /** Relays one client frame to the service and returns the assistant's message. */
  answer(user: AuthUser, id: string, frame: Frame): Promise<Message>;
}

/**
 * A client socket (chat, planning) that relays to a service: the handshake is refused
 * (403 foreign Origin, 401, 400, 404) before the upgrade, so a refused client never sees an open socket; then
 * `chat_history` on connect, a `message` frame per client frame, answered one at a time in
 * the order sent, and an `error` frame for a bad frame or a failed answer. The gateway keeps
 * no state of its own.
 */
export function registerRelaySocket<Frame, Message, History>(
  app: FastifyInstance,
  opts: RelaySocketOptions<Frame, Message, History>,
): void {
  const Query = Type.Object({
    /** A one-time code from POST /api/auth/socket-ticket; never a token (URLs are logged). */
    ticket: Type.Optional(Type.String({ maxLength: 512 })),
    /** The same code under the parameter's public name, which clients already send. */
    token: Type.Optional(Type.String({ maxLength: 4096 })),
    [opts.idParam]: Type.Optional(Type.String()),
  });
  type Query = Record<string, string | undefined>;
  // The history read during the handshake, handed to the socket handler that follows it.
  const historyOf = new Map<string, History>();
  app.addHook('onResponse', async (req) => {
    historyOf.delete(req.id);
  });

  app.get<{ Querystring: Query }>(
    opts.path,
    {
      websocket: true,
      // The guard wants a header or cookie token; a browser socket carries a one-time ticket.
      config: { public: true },
      schema: { querystring: Query },
      preValidation: async (req, reply) => {
        // Origin first (403), then the ticket or each token the handshake carries until one verifies (401).
        const check = await app.checkHandshake(req);
        if (!check.ok) return reply.code(check.status).send({ detail: check.detail });
        const user = check.user;
        const id = req.query[opts.idParam] ?? '';
        if (!id) return reply.code(400).send({ detail: `${opts.idParam} is required` });
        try {
          historyOf.set(req.id, await opts.history(user, id));
          req.user = user;
        } catch (err) {
          if (err instanceof ServiceError) {
            return reply.code(httpStatusFor[err.code]).send({ detail: userMessage(err) });
          }
          throw err;
        }
      },
    },
    (socket: WebSocket, req) => {
      const user = req.user!;
      const id = req.query[opts.idParam]!;
      const sendFrame = (frame: Record<string, unknown>) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame));
      };
      sendFrame({ type: 'chat_history', messages: historyOf.get(req.id) ?? [] });
      historyOf.delete(req.id);

      const answer = async (raw: string) => {
        let frame: Frame;
        try {
          const parsed: unknown = JSON.parse(raw);
          assertValid(opts.frameSchema, parsed, 'message');
          frame = parsed as Frame;
        } catch (err) {
          const error = err instanceof ServiceError ? err.message : 'Invalid JSON';
          req.log.warn({ reason: error, path: opts.path }, 'socket frame refused');
          return sendFrame({ type: 'error', error });
        }
        try {
          sendFrame({ type: 'message', message: await opts.answer(user, id, frame) });
        } catch (err) {
          if (!(err instanceof ServiceError) || httpStatusFor[err.code] >= 500) {
            req.log.error({ err, path: opts.path }, 'socket message failed');
          }
          sendFrame({ type: 'error', error: userMessage(err) });
        }
      };

      // One message at a time per socket, in the order sent: each sees the previous answer.
      let queue = Promise.resolve();
      socket.on('message', (data: Buffer) => {
        const raw = data.toString('utf8');
        queue = queue.then(() => answer(raw));
      });
    },
  );
}

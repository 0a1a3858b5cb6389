import {
  FANOUT_ALL,
  FanoutDeliverySchema,
  interimDelivery,
  LIVE_INTERIM_ALL,
  LiveUtteranceSchema,
  LiveJoinSchema,
  LiveSocketEvents,
  SOCKET_EDGE_QUEUE,
  liveContent,
  liveJoinRpc,
  liveRoom,
  sessionRevokedEvent,
  type AuthUser,
  type BusEvent,
  type FanoutDelivery,
  type JoinedTranscription,
  type LiveTranscriptionEvent,
  type SessionEndEvent,
} from '@chronicler/contracts';
import {
  call,
  listen,
  liveEvents,
  liveSockets,
  liveUtteranceLatencySeconds,
  ServiceError,
} from '@chronicler/kit';
import { createAdapter } from '@socket.io/redis-adapter';
import { Value } from '@sinclair/typebox/value';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Redis } from 'ioredis';
import type { IncomingMessage } from 'node:http';
import { Server, type DefaultEventsMap, type Socket } from 'socket.io';

declare module 'fastify' {
  interface FastifyInstance {
    /** Sockets joined to a transcript's room, on every gateway. */
    liveViewers(transcriptId: string): Promise<number>;
  }
}

const LIVE_SOCKET_PATH = '/socket.io';
/** Joins one socket may send per window: each costs a read of the stored lines. */
const JOIN_BURST = 20;
const JOIN_WINDOW_MS = 10_000;

/** What the socket edge hears: the transcript service's deliveries and the pipeline's interims. */
const fanoutEvent: BusEvent<typeof FanoutDeliverySchema> = {
  subject: FANOUT_ALL,
  payload: FanoutDeliverySchema,
};
const interimEvent: BusEvent<typeof LiveUtteranceSchema> = {
  subject: LIVE_INTERIM_ALL,
  payload: LiveUtteranceSchema,
};

/**
 * Speech to viewer: from the moment the speaker finished the utterance (the session's start
 * plus the line's end offset, both set by the pipeline) to its final handed to socket.io.
 * Measured here, at the last step our code takes; what follows is socket.io and the network.
 */
function observeFinalLatency(event: unknown): void {
  const e = event as Partial<LiveTranscriptionEvent> | null;
  if (e?.type !== 'final' || typeof e.session_start_time !== 'string' || typeof e.end_seconds !== 'number')
    return;
  const spokenEnd = Date.parse(e.session_start_time) + e.end_seconds * 1000;
  if (!Number.isFinite(spokenEnd)) return;
  // A replay played faster than real time ends its lines "in the future": that counts as 0.
  liveUtteranceLatencySeconds.observe(Math.max(0, Date.now() - spokenEnd) / 1000);
}

interface SocketData {
  user: AuthUser;
  /** The sign-in session the handshake's token belongs to: a logout ends the socket too. */
  sessionId: string;
  joins: number[];
}

/**
 * The live transcript socket: socket.io at /socket.io on the gateway's own origin.
 * The handshake is refused for a foreign Origin before anything else, then authenticated
 * with the token of the auth payload (or header, cookie: checkHandshake). A socket
 * joins a transcript's room only after the owner check (the first read) succeeded; the join answers with the stored lines the
 * client is missing (`last_seq`), so a reconnect or a restarted fan-out loses nothing.
 * Stored lines and session ends come from the transcript service on `fanout.<tid>`, as it
 * stores them; interims straight from the pipeline on `live.<tid>.interim`. One gateway of
 * the queue group takes each and emits it to the room; across gateways the Redis adapter
 * carries it (cluster). Neither hop is stored: a client that missed a line asks for the
 * stored lines after the last it holds.
 */
export default fp(
  async (app: FastifyInstance) => {
    const { bus, platform, logger } = app.ctx;
    const redis =
      platform.redisUrl !== null ? await openAdapterClients(platform.redisUrl, app.ctx.logger) : null;

    // @fastify/websocket routes every upgrade through fastify, which would answer 404 and
    // close a socket.io upgrade under socket.io's feet: the /socket.io path is socket.io's alone.
    const upgradeListeners = app.server.listeners('upgrade') as ((...args: unknown[]) => void)[];
    app.server.removeAllListeners('upgrade');
    for (const listener of upgradeListeners) {
      app.server.on('upgrade', (req: IncomingMessage, ...rest: unknown[]) => {
        if (!isLivePath(req.url)) listener.call(app.server, req, ...rest);
      });
    }

    const io = new Server<DefaultEventsMap, DefaultEventsMap, DefaultEventsMap, SocketData>(app.server, {
      path: LIVE_SOCKET_PATH,
      serveClient: false,
      // Other upgrades (/api/ws/*) belong to @fastify/websocket.
      destroyUpgrade: false,
      // A delivery is one line of text; a client sends only joins.
      maxHttpBufferSize: 64 * 1024,
      // A foreign page must not even open the transport (polling or websocket).
      allowRequest: (req, done) => {
        const origin = req.headers.origin;
        if (origin !== undefined && !app.isAllowedOrigin(origin, req))
          return done('Cross-origin request refused', false);
        const site = req.headers['sec-fetch-site'];
        if (origin === undefined && site !== undefined && site !== 'same-origin' && site !== 'none') {
          return done('Cross-origin request refused', false);
        }
        done(null, true);
      },
      ...(redis
        ? {
            adapter: createAdapter(redis.pub, redis.sub, {
              key: `${platform.prefix}#live`,
              requestsTimeout: 2000,
            }),
          }
        : {}),
    });

    io.use(async (socket, next) => {
      try {
        const check = await app.checkHandshake(socket.request, {
          auth: socket.handshake.auth as Record<string, unknown>,
          query: socket.handshake.query as Record<string, unknown>,
        });
        if (!check.ok) {
          const err = new Error(check.detail) as Error & { data?: unknown };
          err.data = { status: check.status };
          return next(err);
        }
        socket.data = { user: check.user, sessionId: check.sessionId, joins: [] };
        next();
      } catch (err) {
        logger.error({ err }, 'live socket handshake failed');
        next(new Error('Service unavailable'));
      }
    });

    io.on('connection', (socket) => {
      liveSockets.inc();
      socket.on('disconnect', () => liveSockets.dec());
      socket.on(LiveSocketEvents.join, (raw: unknown) => {
        void join(socket, raw);
      });
    });

    async function join(
      socket: Socket<DefaultEventsMap, DefaultEventsMap, DefaultEventsMap, SocketData>,
      raw: unknown,
    ): Promise<void> {
      const now = Date.now();
      const joins = socket.data.joins.filter((t) => now - t < JOIN_WINDOW_MS);
      socket.data.joins = joins;
      if (!Value.Check(LiveJoinSchema, raw)) {
        socket.emit(LiveSocketEvents.error, { error: 'join-transcription needs a transcriptId' });
        return;
      }
      if (joins.length >= JOIN_BURST) {
        socket.emit(LiveSocketEvents.error, {
          transcriptId: raw.transcriptId,
          error: 'Too many joins; try again shortly',
        });
        return;
      }
      joins.push(now);
      const room = liveRoom(raw.transcriptId);
      const owner_id = socket.data.user.id;
      let after = raw.last_seq ?? 0;
      let joinedRoom = false;
      try {
        // The read is the owner check (another user's id answers not_found): the socket enters
        // the room only after it succeeded, so a refused join never receives a frame.
        let page = await call(bus, liveJoinRpc, { owner_id, id: raw.transcriptId, after_seq: after });
        if (page.status !== 'ended') {
          await socket.join(room);
          joinedRoom = true;
        }
        const joined: JoinedTranscription = {
          transcript_id: page.transcript_id,
          session_start_time: page.session_start_time,
          status: page.status,
          last_seq: page.last_seq,
        };
        socket.emit(LiveSocketEvents.joined, joined);
        const whole = after === 0;
        // A line stored between the first read and the join came by neither way: read on once
        // the socket is in the room, until a page that was read after the join ends the lines
        // (a line may come twice, by both ways; the client keeps one per seq).
        let readAfterJoin = false;
        for (;;) {
          const last = page.lines.at(-1);
          if (last || (whole && after === 0 && !readAfterJoin)) {
            const initial: LiveTranscriptionEvent = {
              transcript_id: page.transcript_id,
              type: 'initial',
              utterance_id: '',
              text: '',
              speaker_tag: 1,
              timestamp: page.session_start_time,
              session_start_time: page.session_start_time,
              start_seconds: 0,
              end_seconds: 0,
              seq: last?.seq ?? after,
              lines: page.lines,
              ...(whole && !page.more && after === 0 ? { content: liveContent(page.lines) } : {}),
            };
            socket.emit(LiveSocketEvents.final, initial);
          }
          if (last) after = last.seq;
          if (!page.more && (readAfterJoin || !joinedRoom)) break;
          readAfterJoin = joinedRoom;
          page = await call(bus, liveJoinRpc, { owner_id, id: raw.transcriptId, after_seq: after });
        }
        if (page.status === 'ended') {
          const end: SessionEndEvent = {
            transcript_id: page.transcript_id,
            name: page.name,
            summary: '',
            llm_summary: '',
            ended_at: page.ended_at ?? '',
            last_seq: page.last_seq,
          };
          socket.emit(LiveSocketEvents.sessionEnd, end);
          if (joinedRoom) await socket.leave(room);
        }
      } catch (err) {
        if (joinedRoom) await socket.leave(room);
        if (err instanceof ServiceError && err.code === 'not_found') {
          socket.emit(LiveSocketEvents.error, {
            transcriptId: raw.transcriptId,
            error: 'Transcript not found',
          });
          return;
        }
        logger.error({ err, transcriptId: raw.transcriptId }, 'live join failed');
        socket.emit(LiveSocketEvents.error, {
          transcriptId: raw.transcriptId,
          error: 'Could not join the live transcript',
        });
      }
    }

    const emit = (d: FanoutDelivery): void => {
      liveEvents.inc({ event: d.event });
      io.to(liveRoom(d.transcript_id)).emit(d.event as never, d.payload as never);
      observeFinalLatency(d.payload);
    };
    const deliveries = listen(bus, fanoutEvent, emit, { queue: SOCKET_EDGE_QUEUE });
    // Interims are a preview, worth nothing late: from the pipeline to the room, no store between.
    const interims = listen(bus, interimEvent, (payload) => emit(interimDelivery(payload)), {
      queue: SOCKET_EDGE_QUEUE,
    });

    // Every gateway hears a logout (no queue group) and closes its own sockets of that session.
    const revoked = listen(bus, sessionRevokedEvent, async (payload) => {
      for (const socket of await io.local.fetchSockets()) {
        if (socket.data.sessionId === payload.session_id) socket.disconnect(true);
      }
    });

    app.decorate('liveViewers', async (transcriptId: string) => {
      try {
        return (await io.in(liveRoom(transcriptId)).fetchSockets()).length;
      } catch (err) {
        logger.warn({ err, transcriptId }, 'could not count live viewers');
        return 0;
      }
    });

    // A stopping gateway (a rollout) closes every socket's connection before fastify waits for
    // its HTTP connections (a long-polling request is one): a closed transport is what
    // socket.io clients answer by reconnecting, through the load balancer, to another gateway,
    // where the join fetches the lines they missed. A socket.io `disconnect` from the server
    // ('io server disconnect') would leave them offline instead. io.close() would also close
    // the HTTP server, which fastify is closing itself.
    app.addHook('preClose', async () => {
      io.engine.close();
    });
    app.addHook('onClose', async () => {
      await deliveries.unsubscribe();
      await interims.unsubscribe();
      await revoked.unsubscribe();
      if (redis) {
        redis.pub.disconnect();
        redis.sub.disconnect();
      }
    });
  },
  { name: 'live-socket', dependencies: ['auth'] },
);

const isLivePath = (url: string | undefined): boolean =>
  url !== undefined &&
  (url === LIVE_SOCKET_PATH ||
    url.startsWith(`${LIVE_SOCKET_PATH}/`) ||
    url.startsWith(`${LIVE_SOCKET_PATH}?`));

async function openAdapterClients(
  url: string,
  logger: { warn(obj: unknown, msg: string): void },
): Promise<{ pub: Redis; sub: Redis }> {
  const pub = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  const sub = pub.duplicate();
  for (const client of [pub, sub])
    client.on('error', (err: unknown) => logger.warn({ err }, 'live socket Redis error'));
  await Promise.all([pub.connect(), sub.connect()]);
  return { pub, sub };
}

import {
  FanoutDeliverySchema,
  LiveJoinSchema,
  LiveSocketEvents,
  liveContent,
  liveJoinRpc,
  liveRoom,
  liveSubject,
  liveWindowRpc,
  sessionRevokedEvent,
  type AuthUser,
  type FanoutDelivery,
  type LiveLine,
  type JoinedTranscription,
  type LiveTranscriptionEvent,
  type SessionEndEvent,
} from '@chronicler/contracts';
import {
  assertValid,
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
import { closeInSlices, type Closable } from '../lib/drain.ts';
import { HeldSession, type JoinPage } from '../lib/held-session.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Sockets joined to each transcript's room, on every gateway (one ask for them all). */
    liveViewers(transcriptIds: readonly string[]): Promise<number[]>;
  }
}

const LIVE_SOCKET_PATH = '/socket.io';
/** Joins one socket may send per window: each costs a read of the stored lines. */
const JOIN_BURST = 20;
const JOIN_WINDOW_MS = 10_000;
/** A stopping gateway closes its live connections in this many slices. */
const DRAIN_SLICES = 10;
/** How long a listing waits for the other gateways' viewer counts. */
const VIEWER_COUNT_MS = 2_000;

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
 * client is missing (`last_seq`): the stored ones, then live-fanout's recent window (a line
 * delivered before it was stored), so a reconnect or a restarted fan-out loses nothing.
 * While this gateway holds a viewer of a session it subscribes to `fanout.<tid>` (no queue
 * group) and emits what comes to its own sockets of that room only: a session's lines reach
 * exactly the gateways with its viewers (live-fanout's finals and interims, the transcript
 * service's lost markers and ends). The Redis adapter spans gateways for the rest (a logout
 * closing a user's sockets everywhere, counting viewers).
 */
export default fp(
  async (app: FastifyInstance) => {
    const { bus, platform, logger } = app.ctx;
    const redis = platform.redisUrl !== null ? openAdapterClients(platform.redisUrl, app.ctx.logger) : null;

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
      // Subscribed before anything is read: a line delivered from now on comes this way (and
      // into the session's recent lines here), one delivered before is stored or in
      // live-fanout's window; both are read once per session and shared by the joins.
      const held = holdSession(raw.transcriptId);
      try {
        // The read is the owner check (another user's id answers not_found): the socket enters
        // the room only after it succeeded, so a refused join never receives a frame.
        let page = await held.read(owner_id, after);
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
        for (;;) {
          const last = page.lines.at(-1);
          if (last || (whole && after === 0)) {
            emitInitial(socket, page, page.lines, last?.seq ?? after, whole && !page.more && after === 0);
          }
          if (last) after = last.seq;
          if (!page.more) break;
          page = await held.read(owner_id, after);
        }
        // What came after the stored lines that were read: live-fanout's window (delivered
        // before this gateway subscribed) and what this gateway heard since (a line may come
        // twice, by both ways; the client keeps one per seq).
        if (joinedRoom && page.status !== 'ended') {
          const recent = await held.recentAfter(after);
          const last = recent.at(-1);
          if (last) emitInitial(socket, page, recent, last.seq, false);
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
      } finally {
        letGoSession(raw.transcriptId);
      }
    }

    function emitInitial(
      socket: Socket<DefaultEventsMap, DefaultEventsMap, DefaultEventsMap, SocketData>,
      page: JoinPage,
      lines: LiveLine[],
      seq: number,
      withContent: boolean,
    ): void {
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
        seq,
        lines,
        ...(withContent ? { content: liveContent(lines) } : {}),
      };
      socket.emit(LiveSocketEvents.final, initial);
    }

    // Only this gateway's sockets: every gateway with a viewer of the session has its own
    // subscription, so nothing crosses the Redis adapter.
    const emit = (d: FanoutDelivery): void => {
      liveEvents.inc({ event: d.event });
      io.local.to(liveRoom(d.transcript_id)).emit(d.event as never, d.payload as never);
      observeFinalLatency(d.payload);
    };

    /** A session this gateway hears: its subscription, the joins under way, what they share. */
    const held = new Map<string, HeldSession>();
    function holdSession(transcriptId: string): HeldSession {
      let h = held.get(transcriptId);
      if (!h) {
        const session = new HeldSession(transcriptId, {
          read: (owner_id, after_seq) => call(bus, liveJoinRpc, { owner_id, id: transcriptId, after_seq }),
          window: async (after_seq) => {
            try {
              return (await call(bus, liveWindowRpc, { id: transcriptId, after_seq })).lines;
            } catch (err) {
              // live-fanout restarting: the stored lines and what this gateway hears stand alone.
              logger.warn({ err, transcriptId }, 'live window not read');
              return null;
            }
          },
        });
        session.sub = bus.subscribe(liveSubject.fanout(transcriptId), (payload, meta) => {
          assertValid(FanoutDeliverySchema, payload, `payload of ${meta.subject}`);
          session.heard(payload);
          emit(payload);
        });
        held.set(transcriptId, session);
        h = session;
      }
      h.joining++;
      return h;
    }
    /** Unsubscribes once no join is under way and no socket of this gateway is in the room. */
    function dropIfUnheld(transcriptId: string): void {
      const h = held.get(transcriptId);
      if (!h || h.joining > 0 || (io.of('/').adapter.rooms.get(liveRoom(transcriptId))?.size ?? 0) > 0)
        return;
      held.delete(transcriptId);
      h.sub
        ?.unsubscribe()
        .catch((err: unknown) => logger.warn({ err, transcriptId }, 'live unsubscribe failed'));
    }
    function letGoSession(transcriptId: string): void {
      const h = held.get(transcriptId);
      if (h) h.joining--;
      dropIfUnheld(transcriptId);
    }
    // The last local socket left a room (a leave, a disconnect).
    io.of('/').adapter.on('delete-room', (room: string) => {
      if (room.startsWith(liveRoom(''))) dropIfUnheld(room.slice(liveRoom('').length));
    });

    // Every gateway hears a logout (no queue group) and closes its own sockets of that session.
    const revoked = listen(bus, sessionRevokedEvent, async (payload) => {
      for (const socket of await io.local.fetchSockets()) {
        if (socket.data.sessionId === payload.session_id) socket.disconnect(true);
      }
    });

    // Each gateway counts its own viewers of a room in O(1) (the adapter's room sizes) and
    // answers every session asked at once: one ask per listing, never one per session.
    const localViewers = (ids: readonly string[]): number[] =>
      ids.map((id) => io.of('/').adapter.rooms.get(liveRoom(id))?.size ?? 0);
    const countsAsked = 'live-viewer-counts';
    io.on(
      countsAsked as never,
      ((ids: unknown, reply: (counts: number[]) => void) => {
        if (Array.isArray(ids) && typeof reply === 'function') reply(localViewers(ids.map(String)));
      }) as never,
    );
    app.decorate('liveViewers', async (transcriptIds: readonly string[]) => {
      const counts = localViewers(transcriptIds);
      if (!redis || transcriptIds.length === 0) return counts;
      try {
        // Bounded here too: the adapter first asks Redis how many gateways listen, which
        // waits in the offline queue for as long as Redis is away.
        let timer: NodeJS.Timeout | undefined;
        const others = (await Promise.race([
          io.serverSideEmitWithAck(countsAsked as never, [...transcriptIds] as never),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('no answer from the other gateways')), VIEWER_COUNT_MS);
          }),
        ]).finally(() => clearTimeout(timer))) as unknown as number[][];
        for (const reply of others) reply.forEach((n, i) => (counts[i]! += Number(n) || 0));
      } catch (err) {
        // Redis away, or a gateway that did not answer in time: this gateway's own count.
        logger.warn({ err }, 'live viewers of other gateways not counted');
      }
      return counts;
    });

    // A stopping gateway (a rollout) closes every socket's connection before fastify waits for
    // its HTTP connections (a long-polling request is one): a closed transport is what
    // socket.io clients answer by reconnecting, through the load balancer, to another gateway,
    // where the join fetches the lines they missed. A socket.io `disconnect` from the server
    // ('io server disconnect') would leave them offline instead. io.close() would also close
    // the HTTP server, which fastify is closing itself.
    // The connections close in slices over LIVE_DRAIN_MS, so the viewers do not all reconnect
    // (and rejoin, each a read) at the same moment elsewhere.
    app.addHook('preClose', async () => {
      const clients: Closable[] = [...io.of('/').sockets.values()].map((socket) => socket.conn);
      if (clients.length > 0) logger.info({ sockets: clients.length }, 'moving live sockets away in slices');
      await closeInSlices(clients, { slices: DRAIN_SLICES, overMs: app.ctx.config.LIVE_DRAIN_MS });
      io.engine.close();
    });
    app.addHook('onClose', async () => {
      await Promise.all([...held.values()].map((h) => h.sub?.unsubscribe()));
      held.clear();
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

/**
 * The adapter's two clients, made to outlast a Redis outage: they connect in the background
 * and reconnect forever (ioredis' default back-off), and a command sent meanwhile waits in the
 * offline queue instead of failing (`maxRetriesPerRequest: null`): the adapter publishes
 * without awaiting, so a rejected command would be an unhandled rejection that ends the
 * process. Live lines do not cross Redis (see emit), so viewers keep receiving them; what
 * spans gateways (counting viewers elsewhere) waits for Redis or times out, and says so.
 */
function openAdapterClients(
  url: string,
  logger: { warn(obj: unknown, msg: string): void; info(obj: unknown, msg: string): void },
): { pub: Redis; sub: Redis } {
  const pub = new Redis(url, { maxRetriesPerRequest: null });
  const sub = pub.duplicate();
  for (const [name, client] of [
    ['publisher', pub],
    ['subscriber', sub],
  ] as const) {
    let down = false;
    client.on('error', (err: unknown) => {
      if (!down) logger.warn({ err, client: name }, 'live socket Redis unreachable; retrying');
      down = true;
    });
    client.on('ready', () => {
      if (down) logger.info({ client: name }, 'live socket Redis back');
      down = false;
    });
  }
  return { pub, sub };
}

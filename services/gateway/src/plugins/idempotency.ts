import type { Lock } from '@chronicler/kit';
import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { createHash } from 'node:crypto';

/**
 * The creates a client may retry after a dropped connection without making a duplicate.
 * Listed here rather than flagged on each route so the whole rule reads in one place.
 */
const IDEMPOTENT_ROUTES = new Set([
  'POST /api/groups',
  'POST /api/transcripts/manual',
  'POST /api/transcripts/manual-audio',
]);

/** How long a first response is kept for retries (the draft's example; Stripe's too). */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/**
 * The lock that stops a concurrent retry is short and kept alive while the first request
 * runs, so a gateway that dies mid-request blocks that key for a minute, not for hours.
 */
const LOCK_TTL_MS = 60_000;
/** An upload of the largest recording over a slow line; after this the lock may lapse. */
const MAX_HOLD_MS = 60 * 60 * 1000;
/** Responses of creates are a few hundred bytes; a larger one is not worth keeping a day. */
const MAX_STORED_BODY = 256 * 1024;

interface StoredResponse {
  fingerprint: string;
  status: number;
  contentType: string | null;
  body: string;
}

interface InFlight {
  storeKey: string;
  fingerprint: string;
  lock: Lock;
  keepAlive: NodeJS.Timeout;
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * `Idempotency-Key` on creates (IETF httpapi draft "The Idempotency-Key HTTP Header Field").
 * The first request with a key runs, and its successful response (status and body) is kept
 * per user and key for 24 h in the platform's cache (Redis in the cluster, memory in the
 * embedded mode). A retry with the same key and the same request gets that response again,
 * marked `Idempotent-Replayed: true`; the same key on a different request answers 422; a
 * retry while the first still runs answers 409, which a lock (set-if-absent) guarantees even
 * across replicas. Failed responses are not kept: nothing was created, so a retry runs again.
 * The request's fingerprint is its method, route and JSON body; an upload's body is a stream
 * read by the handler, so there the key alone identifies it. No header: nothing changes.
 */
export default fp(
  async (app) => {
    const { cache, locks } = app.ctx.coord;
    const inFlight = new WeakMap<FastifyRequest, InFlight>();

    function answer(
      req: FastifyRequest,
      reply: FastifyReply,
      status: number,
      body: string | { detail: string },
      contentType?: string | null,
    ): FastifyReply {
      // An upload answered before its body was read: drop the rest rather than read it.
      if (!req.raw.readableEnded) {
        reply.header('connection', 'close');
        req.raw.resume();
      }
      if (contentType) reply.header('content-type', contentType);
      return reply.code(status).send(body);
    }

    function replay(
      req: FastifyRequest,
      reply: FastifyReply,
      stored: StoredResponse,
      fingerprint: string,
    ): FastifyReply {
      if (stored.fingerprint !== fingerprint) {
        return answer(req, reply, 422, {
          detail: 'This Idempotency-Key was already used for a different request',
        });
      }
      reply.header('idempotent-replayed', 'true');
      return answer(req, reply, stored.status, stored.body, stored.contentType);
    }

    const before: preHandlerHookHandler = async function (req, reply) {
      const header = req.headers['idempotency-key'];
      if (header === undefined || !req.user) return;
      // The draft's value is a structured-field string ("..."); a bare token is accepted too.
      const key = /^".*"$/.test(header as string) ? (header as string).slice(1, -1) : (header as string);
      if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
        return answer(req, reply, 400, {
          detail: `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`,
        });
      }
      const fingerprint = sha256(
        JSON.stringify([req.method, req.routeOptions.url, req.body === undefined ? null : req.body]),
      );
      const storeKey = `idempotency:${req.user.id}:${sha256(key)}`;
      const stored = await cache.get<StoredResponse>(storeKey);
      if (stored) return replay(req, reply, stored, fingerprint);

      const lock = await locks.acquire(`${storeKey}:running`, LOCK_TTL_MS);
      if (!lock) {
        return answer(req, reply, 409, {
          detail: 'A request with this Idempotency-Key is still being processed. Please retry later.',
        });
      }
      // The first request may have finished between the look-up and the lock.
      const finished = await cache.get<StoredResponse>(storeKey).catch(async (err: unknown) => {
        await lock.release().catch(() => false);
        throw err;
      });
      if (finished) {
        await lock.release();
        return replay(req, reply, finished, fingerprint);
      }
      const started = Date.now();
      const keepAlive = setInterval(() => {
        if (Date.now() - started > MAX_HOLD_MS) return clearInterval(keepAlive);
        lock
          .extend(LOCK_TTL_MS)
          .catch((err: unknown) => req.log.warn({ err }, 'idempotency lock not extended'));
      }, LOCK_TTL_MS / 3);
      keepAlive.unref();
      inFlight.set(req, { storeKey, fingerprint, lock, keepAlive });
    };

    // onSend sees the body as sent and runs for errors too, so the lock is always released.
    const after: onSendHookHandler = async function (req, reply, payload) {
      const run = inFlight.get(req);
      if (!run) return payload;
      inFlight.delete(req);
      clearInterval(run.keepAlive);
      try {
        const body =
          typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : null;
        const ok = reply.statusCode >= 200 && reply.statusCode < 300;
        if (ok && body !== null && body.length <= MAX_STORED_BODY) {
          const contentType = reply.getHeader('content-type');
          await cache.set(
            run.storeKey,
            {
              fingerprint: run.fingerprint,
              status: reply.statusCode,
              contentType: typeof contentType === 'string' ? contentType : null,
              body,
            } satisfies StoredResponse,
            IDEMPOTENCY_TTL_MS,
          );
        }
      } catch (err) {
        // The create happened and is answered; only a retry of it could now repeat it.
        req.log.warn({ err }, 'idempotent response not stored');
      } finally {
        await run.lock.release().catch(() => false);
      }
      return payload;
    };

    // Route-level hooks run after the route folder's own, so the user is known by then.
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      if (!methods.some((m) => IDEMPOTENT_ROUTES.has(`${m} ${route.url}`))) return;
      route.preHandler = [...toArray(route.preHandler), before];
      route.onSend = [...toArray(route.onSend), after];
    });
  },
  { name: 'idempotency', dependencies: ['auth'] },
);

const toArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

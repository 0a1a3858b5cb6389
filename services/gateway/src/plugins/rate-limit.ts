import { createHash } from 'node:crypto';
import { SyncedRateLimiter, type RateLimitAllResult, type RateLimitHit } from '@chronicler/kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Opened by a secret in its path (/api/shared/{token}): its own limit per address and link. */
    shareLink?: boolean;
  }
  interface FastifyInstance {
    /**
     * Whether the auth plugin can tell who sent this request without a round trip (the check
     * of its token is cached). Absent without the auth plugin.
     */
    sessionKnown?: (req: FastifyRequest) => boolean;
  }
  interface FastifyRequest {
    /** Whether the per-address limits were counted (in onRequest or preParsing, see below). */
    rateLimitCounted: boolean;
  }
}

const TOO_MANY = { detail: 'Too many requests. Please try again later.' };

const isApi = (url: string): boolean => url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');

/**
 * Sliding-window limits on /api through the platform's rate limiter (Redis in the cluster,
 * so replicas share the counts; memory in the embedded mode): per client address, a
 * stricter one for sign-in endpoints, and per signed-in user. All the limits a request is
 * held to are checked and counted together: a refused request counts against none of them.
 * Over a limit: 429 with Retry-After.
 *
 * The address limit must hold before any work that a flood could make expensive. A request
 * whose token the auth plugin has cached costs the auth plugin nothing, so its limits wait
 * until it has been identified and are checked together (the common case: one check).
 * Any other request is held to the address limits in onRequest, before the auth plugin
 * asks the auth service about its token, and to the user limit afterwards.
 *
 * With Redis and RATE_LIMIT_SYNC_MS > 0 the address and user limits are counted by a
 * SyncedRateLimiter: each gateway decides from its own counts plus the others' as of the last
 * sync and shares its counts every RATE_LIMIT_SYNC_MS, so a request costs no Redis round trip.
 * Sign-in limits guard passwords and stay exact: they ask Redis on every attempt.
 */
export default fp(
  async (app) => {
    const cfg = app.ctx.config;
    const limiter = app.ctx.coord.rateLimiter;
    const windowMs = cfg.RATE_LIMIT_WINDOW_MS;
    app.decorateRequest('rateLimitCounted', false);

    const isFeed = (req: FastifyRequest): boolean => req.routeOptions.config.feed === true;
    const addressLimits = (req: FastifyRequest): RateLimitHit[] => {
      // A feed is not a user: its own limit, apart from the browsers behind the same address.
      if (isFeed(req)) return [{ key: `rl:feed:${req.ip}`, limit: cfg.RATE_LIMIT_FEED_MAX, windowMs }];
      const hits = [{ key: `rl:ip:${req.ip}`, limit: cfg.RATE_LIMIT_IP_MAX, windowMs }];
      if (req.routeOptions.config.signIn) {
        hits.push({ key: `rl:sign-in:${req.ip}`, limit: cfg.RATE_LIMIT_SIGN_IN_MAX, windowMs });
      }
      // A shared link's reads: a table of players behind one address reading together, counted
      // per link (its token's hash, never the token), so wrong tokens from the same address never
      // hold back a link that works. Guessing stays bounded by the address limit above, and a
      // token is 256 random bits: no count of tries finds one.
      if (req.routeOptions.config.shareLink) {
        const { token = '' } = req.params as { token?: string };
        const link = createHash('sha256').update(token).digest('base64url').slice(0, 22);
        hits.push({ key: `rl:share:${req.ip}:${link}`, limit: cfg.RATE_LIMIT_SHARE_MAX, windowMs });
      }
      return hits;
    };

    const synced =
      app.ctx.coord.kind === 'redis' && cfg.RATE_LIMIT_SYNC_MS > 0
        ? new SyncedRateLimiter(app.ctx.coord.windowCounters, {
            syncMs: cfg.RATE_LIMIT_SYNC_MS,
            logger: app.ctx.logger,
          })
        : null;
    if (synced) app.addHook('onClose', () => synced.close());
    const isSignIn = (h: RateLimitHit): boolean => h.key.startsWith('rl:sign-in:');

    /** Every hit counted or none: sign-in limits by the exact limiter, the rest by the synced one when there is one. */
    async function hitAll(hits: RateLimitHit[]): Promise<RateLimitAllResult> {
      if (!synced) return limiter.hitAll(hits);
      const local = hits.filter((h) => !isSignIn(h));
      const exact = hits.filter(isSignIn);
      if (local.length === 0) return limiter.hitAll(exact);
      const r = await synced.hitAll(local);
      if (!r.allowed || exact.length === 0) return r;
      let e: RateLimitAllResult;
      try {
        e = await limiter.hitAll(exact);
      } catch (err) {
        synced.release(local);
        throw err;
      }
      if (!e.allowed) {
        synced.release(local);
        return e;
      }
      return { ...e, remaining: Math.min(e.remaining, r.remaining) };
    }

    /** Counts the hits; false (with the 429 sent) when one of them refused. */
    async function limit(req: FastifyRequest, reply: FastifyReply, hits: RateLimitHit[]): Promise<boolean> {
      const r = await hitAll(hits);
      if (r.allowed) return true;
      req.log.warn({ key: r.refusedKey }, 'rate limited');
      await reply
        .code(429)
        .header('retry-after', String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))))
        .send(TOO_MANY);
      return false;
    }

    app.addHook('onRequest', async (req, reply) => {
      if (!isApi(req.url) || app.sessionKnown?.(req)) return;
      req.rateLimitCounted = true;
      if (!(await limit(req, reply, addressLimits(req)))) return reply;
    });

    // preParsing runs after every onRequest hook (the auth plugin's included) and before the
    // body is read, so a request over a limit costs no body parsing. When a limit refused in
    // onRequest the 429 is already sent, and fastify stops at a sent reply.
    app.addHook('preParsing', async (req, reply, payload) => {
      if (!isApi(req.url)) return payload;
      const hits = req.rateLimitCounted ? [] : addressLimits(req);
      req.rateLimitCounted = true;
      if (req.user && !isFeed(req))
        hits.push({ key: `rl:user:${req.user.id}`, limit: cfg.RATE_LIMIT_USER_MAX, windowMs });
      if (hits.length > 0) await limit(req, reply, hits);
      return payload;
    });

    // A request whose limits waited for the auth plugin and that it answered itself (403 to
    // a cross-origin write or a non-admin) never reached preParsing: it still counts against
    // its address, after the fact.
    app.addHook('onResponse', async (req) => {
      if (!isApi(req.url) || req.rateLimitCounted) return;
      await hitAll(addressLimits(req)).catch((err: unknown) =>
        req.log.warn({ err }, 'rate limit not counted'),
      );
    });
  },
  { name: 'rate-limit', dependencies: ['errors'] },
);

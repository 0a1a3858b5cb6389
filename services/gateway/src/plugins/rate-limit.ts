import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const TOO_MANY = { detail: 'Too many requests. Please try again later.' };

const isApi = (url: string): boolean => url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');

/**
 * Sliding-window limits on /api through the platform's rate limiter (Redis in the cluster,
 * so replicas share the counts; memory in the embedded mode): per client address before
 * anything else runs, a stricter one for sign-in endpoints, and per signed-in user once
 * the auth plugin has identified them. Over a limit: 429 with Retry-After.
 */
export default fp(
  async (app) => {
    const cfg = app.ctx.config;
    const limiter = app.ctx.coord.rateLimiter;
    const window = cfg.RATE_LIMIT_WINDOW_MS;

    async function limit(
      req: FastifyRequest,
      reply: FastifyReply,
      key: string,
      max: number,
    ): Promise<boolean> {
      const r = await limiter.hit(key, max, window);
      if (r.allowed) return true;
      req.log.warn({ key }, 'rate limited');
      await reply
        .code(429)
        .header('retry-after', String(Math.max(1, Math.ceil(r.retryAfterMs / 1000))))
        .send(TOO_MANY);
      return false;
    }

    app.addHook('onRequest', async (req, reply) => {
      if (!isApi(req.url)) return;
      if (!(await limit(req, reply, `rl:ip:${req.ip}`, cfg.RATE_LIMIT_IP_MAX))) return reply;
      if (
        req.routeOptions.config.signIn &&
        !(await limit(req, reply, `rl:sign-in:${req.ip}`, cfg.RATE_LIMIT_SIGN_IN_MAX))
      ) {
        return reply;
      }
    });

    // preParsing runs after every onRequest hook (the auth plugin's included) and before the
    // body is read, so a user over the limit costs no body parsing.
    app.addHook('preParsing', async (req, reply, payload) => {
      // When over the limit the 429 is already sent, and fastify stops at a sent reply.
      if (req.user && isApi(req.url))
        await limit(req, reply, `rl:user:${req.user.id}`, cfg.RATE_LIMIT_USER_MAX);
      return payload;
    });
  },
  { name: 'rate-limit', dependencies: ['errors'] },
);

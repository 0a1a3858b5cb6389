import cookie from '@fastify/cookie';
import {
  ACCESS_TOKEN_COOKIE,
  sessionRevokedEvent,
  verifySessionRpc,
  type AuthUser,
  type VerifySessionResult,
} from '@chronicler/contracts';
import { assertValid, call } from '@chronicler/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { SessionCache } from '../lib/session-cache.ts';

export type TokenSource = 'cookie' | 'bearer' | 'auth-token';

export interface RequestAuth {
  sessionId: string;
  source: TokenSource;
  /** The token to use from now on: the presented one, or its renewal. */
  token: string;
  sessionExpiresAt: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without signing in (the guard lets it through). */
    public?: boolean;
    /** A sign-in endpoint: counted against the stricter per-address sign-in limit. */
    signIn?: boolean;
  }
  interface FastifyRequest {
    user: AuthUser | null;
    auth: RequestAuth | null;
  }
  interface FastifyInstance {
    /** Checks a token for a WebSocket or socket.io handshake; the user, or null. */
    authenticateHandshake(token: string | null | undefined): Promise<AuthUser | null>;
    /** Forgets cached checks of a session (logout on this replica, before the event arrives). */
    forgetSession(sessionId: string): void;
    setAccessCookie(req: FastifyRequest, reply: FastifyReply, token: string, sessionExpiresAt: string): void;
    clearAccessCookie(req: FastifyRequest, reply: FastifyReply): void;
    /** Our own origin as the browser sees it (PUBLIC_URL, else the request's). */
    publicOrigin(req: FastifyRequest): string;
  }
}

const UNAUTHORIZED = { detail: 'Authentication required' };
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The tokens a request carries, in the order they are tried: cookie, Bearer, auth-token. */
export function requestTokens(req: FastifyRequest): { source: TokenSource; token: string }[] {
  const found: { source: TokenSource; token: string }[] = [];
  const fromCookie = req.cookies?.[ACCESS_TOKEN_COOKIE];
  if (fromCookie) found.push({ source: 'cookie', token: fromCookie });
  const authz = req.headers.authorization;
  const bearer = authz && /^Bearer\s+(\S+)\s*$/i.exec(authz)?.[1];
  if (bearer) found.push({ source: 'bearer', token: bearer });
  const header = req.headers['auth-token'];
  if (typeof header === 'string' && header.trim()) found.push({ source: 'auth-token', token: header.trim() });
  return found;
}

/** The token of a WebSocket/socket.io handshake: `?token=`, the socket.io auth payload, or the cookie. */
export function handshakeToken(opts: {
  query?: Record<string, unknown>;
  auth?: Record<string, unknown>;
  cookies?: Record<string, string | undefined>;
}): string | null {
  for (const v of [opts.query?.token, opts.auth?.token, opts.cookies?.[ACCESS_TOKEN_COOKIE]]) {
    if (typeof v === 'string' && v) return v;
  }
  return null;
}

/**
 * Authentication and authorisation for every route:
 * - reads the token from the cookie, `Authorization: Bearer` or `auth-token` (first that
 *   verifies wins) and sets `request.user`; an expired token whose session is live is
 *   renewed and, when it came from the cookie, the cookie is replaced;
 * - the guard: every route under /api answers 401 unless signed in or marked
 *   `config.public`, and /api/admin/* answers 403 to non-admins (deny by default, so a
 *   route folder cannot forget it);
 * - writes (POST, PUT, PATCH, DELETE) without a header token must come from our own
 *   origin: a cross-site page can make the browser send our cookie, but cannot add an
 *   Authorization or auth-token header without a CORS preflight, which we never grant.
 */
export default fp(
  async (app: FastifyInstance) => {
    const cfg = app.ctx.config;
    const cache = new SessionCache(cfg.SESSION_CACHE_TTL_MS);
    await app.register(cookie);

    // No queue group: every gateway replica must hear every revocation.
    const revoked = app.ctx.bus.subscribe(sessionRevokedEvent.subject, (payload) => {
      assertValid(sessionRevokedEvent.payload, payload, 'event');
      cache.evictSession((payload as { session_id: string }).session_id);
    });
    app.addHook('onClose', async () => {
      await revoked.unsubscribe();
    });

    async function verify(token: string): Promise<Extract<VerifySessionResult, { valid: true }> | null> {
      // A JWT has three dot-separated parts; anything else is not worth a bus round trip.
      if (token.length > 8192 || token.split('.').length !== 3) return null;
      const cached = cache.get(token);
      if (cached) return cached;
      const result = await call(app.ctx.bus, verifySessionRpc, { token });
      if (!result.valid) return null;
      cache.set(result.reissued_token ?? token, result);
      return result;
    }

    const publicOrigin = (req: FastifyRequest): string =>
      cfg.PUBLIC_URL ? new URL(cfg.PUBLIC_URL).origin : `${req.protocol}://${req.host}`;
    const isHttps = (req: FastifyRequest): boolean => publicOrigin(req).startsWith('https:');
    const trustedOrigins = new Set(
      cfg.TRUSTED_ORIGINS.split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => new URL(s).origin),
    );

    app.decorate('publicOrigin', publicOrigin);
    app.decorate('forgetSession', (sessionId: string) => cache.evictSession(sessionId));
    app.decorate('authenticateHandshake', async (token: string | null | undefined) => {
      if (!token) return null;
      return (await verify(token))?.user ?? null;
    });
    app.decorate(
      'setAccessCookie',
      (req: FastifyRequest, reply: FastifyReply, token: string, sessionExpiresAt: string) => {
        const maxAge = Math.max(0, Math.floor((new Date(sessionExpiresAt).getTime() - Date.now()) / 1000));
        reply.setCookie(ACCESS_TOKEN_COOKIE, token, {
          path: '/',
          httpOnly: true,
          sameSite: 'lax',
          secure: isHttps(req),
          maxAge,
        });
      },
    );
    app.decorate('clearAccessCookie', (req: FastifyRequest, reply: FastifyReply) => {
      reply.clearCookie(ACCESS_TOKEN_COOKIE, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: isHttps(req),
      });
    });

    app.decorateRequest('user', null);
    app.decorateRequest('auth', null);

    function sameOrigin(req: FastifyRequest): boolean {
      const origin = req.headers.origin;
      if (origin !== undefined) {
        if (origin === publicOrigin(req) || trustedOrigins.has(origin)) return true;
        // Origin can be "null" (sandboxed frames, some redirects): never ours.
        return false;
      }
      // Without Origin, Fetch Metadata still tells a cross-site request from a same-origin one.
      const site = req.headers['sec-fetch-site'];
      if (site !== undefined) return site === 'same-origin' || site === 'none';
      // Neither header: not a browser (curl, a service), so not a forged cross-site request.
      return true;
    }

    app.addHook('onRequest', async (req, reply) => {
      const url = req.url;
      if (!(url === '/api' || url.startsWith('/api/') || url.startsWith('/api?'))) return;
      const tokens = requestTokens(req);
      const headerToken = tokens.some((t) => t.source !== 'cookie');

      if (!SAFE_METHODS.has(req.method) && !headerToken && !sameOrigin(req)) {
        req.log.warn(
          { origin: req.headers.origin, site: req.headers['sec-fetch-site'] },
          'cross-origin write refused',
        );
        return reply.code(403).send({ detail: 'Cross-origin request refused' });
      }

      const route = req.routeOptions.url;
      // Unknown paths fall through to the JSON 404, which tells nothing about who is asking.
      const open = route === undefined || req.routeOptions.config.public === true;

      for (const { source, token } of tokens) {
        // When the auth service cannot answer, a public route (e.g. /api/health, which must
        // report exactly that) goes on anonymously; a protected one fails with the error.
        const result = await verify(token).catch((err: unknown) => {
          if (!open) throw err;
          req.log.warn({ err }, 'token not checked; serving the public route anonymously');
          return null;
        });
        if (!result) continue;
        const current = result.reissued_token ?? token;
        req.user = result.user;
        req.auth = {
          sessionId: result.session_id,
          source,
          token: current,
          sessionExpiresAt: result.session_expires_at,
        };
        if (result.reissued_token && source === 'cookie') {
          app.setAccessCookie(req, reply, current, result.session_expires_at);
        }
        break;
      }

      if (open) return;
      if (!req.user) return reply.code(401).send(UNAUTHORIZED);
      if ((route === '/api/admin' || route.startsWith('/api/admin/')) && !req.user.is_admin) {
        return reply.code(403).send({ detail: 'Admin access required' });
      }
    });
  },
  { name: 'auth', dependencies: ['errors'] },
);

/** preHandler for route folders that want the check spelled out where they are declared. */
export async function requireAuth(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!req.user) return reply.code(401).send(UNAUTHORIZED);
}

/** preHandler for admin-only routes (also enforced for /api/admin/* by the guard). */
export async function requireAdmin(req: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!req.user) return reply.code(401).send(UNAUTHORIZED);
  if (!req.user.is_admin) return reply.code(403).send({ detail: 'Admin access required' });
}

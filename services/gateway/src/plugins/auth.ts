import cookie from '@fastify/cookie';
import {
  ACCESS_TOKEN_COOKIE,
  REFRESH_COOKIE_PATH,
  REFRESH_TOKEN_COOKIE,
  redeemSocketTicketRpc,
  sessionRevokedEvent,
  verifySessionRpc,
  type AuthUser,
  type VerifySessionResult,
} from '@chronicler/contracts';
import { call, listen } from '@chronicler/kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { SessionCache } from '../lib/session-cache.ts';

export type TokenSource = 'cookie' | 'bearer' | 'auth-token';
type HandshakeTokenSource = TokenSource | 'ticket' | 'socket-auth';

/** The outcome of a WebSocket or socket.io handshake check. */
type HandshakeCheck =
  | { ok: true; user: AuthUser; sessionId: string; source: HandshakeTokenSource }
  | { ok: false; status: 401 | 403; detail: string };

/** What a handshake carries besides its headers: the parsed query and socket.io's auth payload. */
interface HandshakeExtras {
  query?: Record<string, unknown>;
  auth?: Record<string, unknown>;
}

interface RequestAuth {
  sessionId: string;
  source: TokenSource;
  /** The access token that signed this request in. */
  token: string;
  sessionExpiresAt: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without signing in (the guard lets it through). */
    public?: boolean;
    /** A sign-in endpoint: counted against the stricter per-address sign-in limit. */
    signIn?: boolean;
    /**
     * A live feed's entry (/api/live-ingest): held to the feed limit (RATE_LIMIT_FEED_MAX per
     * address) instead of the address and user limits that browsers share.
     */
    feed?: boolean;
    /**
     * A GET that changes state (logout): held to the same-origin rule of writes, since a
     * foreign page can make the browser send a GET with our cookie (a link, an image).
     */
    changesState?: boolean;
  }
  interface FastifyRequest {
    user: AuthUser | null;
    auth: RequestAuth | null;
  }
  interface FastifyInstance {
    /**
     * Checks one explicit access token (refused once expired); the user, or null. For a
     * whole handshake use `checkHandshake`, which also checks Origin and the cookie.
     */
    authenticateHandshake(token: string | null | undefined): Promise<AuthUser | null>;
    /**
     * Checks a WebSocket or socket.io handshake before the upgrade: a foreign Origin (or a
     * cross-site Fetch Metadata) is refused with 403; then a one-time `?ticket=` (POST
     * /api/auth/socket-ticket), and each token it carries (socket.io auth payload,
     * Authorization / auth-token headers, and the cookie) is tried until one verifies, else
     * 401. A token in the URL counts as none: URLs end up in logs and histories. The cookie
     * counts only with an allowed Origin: a handshake without Origin is not from a browser
     * and must name its token.
     */
    checkHandshake(req: FastifyRequest | IncomingMessage, extras?: HandshakeExtras): Promise<HandshakeCheck>;
    /**
     * Whether a browser's Origin is ours: PUBLIC_URL's origin (else the request's own) or
     * one of TRUSTED_ORIGINS. The rule of cookie-authenticated writes and of handshakes.
     */
    isAllowedOrigin(origin: string, req: FastifyRequest | IncomingMessage): boolean;
    /** Forgets cached checks of a session (logout on this replica, before the event arrives). */
    forgetSession(sessionId: string): void;
    /** The access token's cookie (Path /), living as long as the token. */
    setAccessCookie(req: FastifyRequest, reply: FastifyReply, token: string, tokenExpiresAt: string): void;
    /** The refresh credential's cookie: httpOnly, SameSite Strict, sent only to REFRESH_COOKIE_PATH. */
    setRefreshCookie(
      req: FastifyRequest,
      reply: FastifyReply,
      refreshToken: string,
      sessionExpiresAt: string,
    ): void;
    /** Clears both cookies (logout, a refused refresh). */
    clearAuthCookies(req: FastifyRequest, reply: FastifyReply): void;
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
  found.push(...headerTokens(req.headers));
  return found;
}

function headerTokens(headers: IncomingHttpHeaders): { source: TokenSource; token: string }[] {
  const found: { source: TokenSource; token: string }[] = [];
  const authz = headers.authorization;
  const bearer = authz && /^Bearer\s+(\S+)\s*$/i.exec(authz)?.[1];
  if (bearer) found.push({ source: 'bearer', token: bearer });
  const header = headers['auth-token'];
  if (typeof header === 'string' && header.trim()) found.push({ source: 'auth-token', token: header.trim() });
  return found;
}

/**
 * The tokens of a WebSocket/socket.io handshake in the order they are tried: the socket.io
 * auth payload, the headers, then the cookie (when `withCookie`). Never the query string.
 */
function handshakeTokens(opts: {
  auth?: Record<string, unknown>;
  headers?: IncomingHttpHeaders;
  cookies?: Record<string, string | undefined>;
  withCookie: boolean;
}): { source: HandshakeTokenSource; token: string }[] {
  const found: { source: HandshakeTokenSource; token: string }[] = [];
  if (typeof opts.auth?.token === 'string' && opts.auth.token)
    found.push({ source: 'socket-auth', token: opts.auth.token });
  if (opts.headers) found.push(...headerTokens(opts.headers));
  const cookie = opts.cookies?.[ACCESS_TOKEN_COOKIE];
  if (opts.withCookie && cookie) found.push({ source: 'cookie', token: cookie });
  return found;
}

/**
 * Authentication and authorisation for every route:
 * - reads the access token from the cookie, `Authorization: Bearer` or `auth-token` (first
 *   that verifies wins) and sets `request.user`; an expired token counts as none wherever it
 *   came from: the client gets a new one from POST /api/auth/refresh, whose refresh cookie
 *   no other route ever sees;
 * - the guard: every route under /api answers 401 unless signed in or marked
 *   `config.public`, and /api/admin/* answers 403 to non-admins (deny by default, so a
 *   route folder cannot forget it);
 * - writes (POST, PUT, PATCH, DELETE) without a header token must come from our own
 *   origin: a cross-site page can make the browser send our cookie, but cannot add an
 *   Authorization or auth-token header without a CORS preflight, which we never grant.
 *   Routes marked `config.changesState` (logout) are held to the same rule on GET.
 */
export default fp(
  async (app: FastifyInstance) => {
    const cfg = app.ctx.config;
    const cache = new SessionCache(cfg.SESSION_CACHE_TTL_MS);
    await app.register(cookie);

    // No queue group: every gateway replica must hear every revocation.
    const revoked = listen(app.ctx.bus, sessionRevokedEvent, (payload) =>
      cache.evictSession(payload.session_id),
    );
    app.addHook('onClose', async () => {
      await revoked.unsubscribe();
    });

    async function verify(token: string): Promise<Extract<VerifySessionResult, { valid: true }> | null> {
      // A JWT has three dot-separated parts; anything else is not worth a bus round trip.
      if (token.length > 8192 || token.split('.').length !== 3) return null;
      // Entries end with their token's expiry, so a cached check never stands for an expired
      // token; concurrent checks of one token share one call (lib/session-cache.ts).
      return cache.check(token, async () => {
        const result = await call(app.ctx.bus, verifySessionRpc, { token });
        return result.valid ? result : null;
      });
    }

    const publicOrigin = (req: FastifyRequest): string =>
      cfg.PUBLIC_URL ? new URL(cfg.PUBLIC_URL).origin : `${req.protocol}://${req.host}`;
    const isRaw = (req: FastifyRequest | IncomingMessage): req is IncomingMessage => !('raw' in req);
    const isHttps = (req: FastifyRequest): boolean => publicOrigin(req).startsWith('https:');
    const trustedOrigins = new Set(
      cfg.TRUSTED_ORIGINS.split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => new URL(s).origin),
    );

    function isAllowedOrigin(origin: string, req: FastifyRequest | IncomingMessage): boolean {
      // Origin can be "null" (sandboxed frames, some redirects): never ours.
      if (trustedOrigins.has(origin)) return true;
      if (!isRaw(req)) return origin === publicOrigin(req);
      if (cfg.PUBLIC_URL) return origin === new URL(cfg.PUBLIC_URL).origin;
      // A bare request (socket.io's) has no trusted-proxy view of its scheme; the one the
      // socket itself used, or either scheme behind a proxy, on exactly our Host.
      const host = req.headers.host;
      if (!host) return false;
      const encrypted = (req.socket as TLSSocket | undefined)?.encrypted === true;
      return encrypted
        ? origin === `https://${host}`
        : origin === `http://${host}` || origin === `https://${host}`;
    }

    /** Whether a browser says it sent this request from elsewhere (Origin, else Fetch Metadata). */
    function foreignRequest(req: FastifyRequest | IncomingMessage): boolean | 'unknown' {
      const origin = req.headers.origin;
      if (origin !== undefined) return !isAllowedOrigin(origin, req);
      const site = req.headers['sec-fetch-site'];
      if (site !== undefined) return !(site === 'same-origin' || site === 'none');
      return 'unknown';
    }

    // For the rate-limit plugin, whose onRequest runs before this plugin's (and before the
    // cookie plugin has parsed the header): whether the token tried first is one whose check
    // is cached, so identifying the request costs no round trip.
    app.decorate('sessionKnown', (req: FastifyRequest): boolean => {
      const fromCookie = (req.cookies ?? app.parseCookie(req.headers.cookie ?? ''))[ACCESS_TOKEN_COOKIE];
      const first = fromCookie || headerTokens(req.headers)[0]?.token;
      return first !== undefined && cache.get(first) !== undefined;
    });
    app.decorate('publicOrigin', publicOrigin);
    app.decorate('isAllowedOrigin', isAllowedOrigin);
    app.decorate('forgetSession', (sessionId: string) => cache.evictSession(sessionId));
    app.decorate('authenticateHandshake', async (token: string | null | undefined) => {
      if (!token) return null;
      return (await verify(token))?.user ?? null;
    });
    app.decorate(
      'checkHandshake',
      async (
        req: FastifyRequest | IncomingMessage,
        extras: HandshakeExtras = {},
      ): Promise<HandshakeCheck> => {
        const foreign = foreignRequest(req);
        if (foreign === true) {
          const log = isRaw(req) ? app.log : req.log;
          log.warn(
            { origin: req.headers.origin, site: req.headers['sec-fetch-site'] },
            'cross-origin handshake refused',
          );
          return { ok: false, status: 403, detail: 'Cross-origin request refused' };
        }
        const cookies = isRaw(req) ? app.parseCookie(req.headers.cookie ?? '') : req.cookies;
        const query = extras.query ?? (isRaw(req) ? undefined : (req.query as Record<string, unknown>));
        // The one-time code comes as `ticket`, or as `token`, the query parameter the
        // specification names for these sockets: whatever `token` holds is only ever redeemed
        // as a code, never verified as an access token (a token in a URL counts as none).
        const ticket = query?.ticket ?? query?.token;
        if (typeof ticket === 'string' && ticket.length > 0 && ticket.length <= 512) {
          // Spent by this check whatever follows: never cached.
          const result = await call(app.ctx.bus, redeemSocketTicketRpc, { ticket });
          if (result.valid)
            return { ok: true, user: result.user, sessionId: result.session_id, source: 'ticket' };
        }
        const candidates = handshakeTokens({
          auth: extras.auth,
          headers: req.headers,
          cookies,
          // Without Origin this is no browser, and the cookie alone must not sign it in.
          withCookie: foreign === false,
        });
        for (const { source, token } of candidates) {
          const result = await verify(token);
          if (result) return { ok: true, user: result.user, sessionId: result.session_id, source };
        }
        return { ok: false, status: 401, detail: 'Authentication required' };
      },
    );
    const maxAgeUntil = (iso: string): number =>
      Math.max(0, Math.floor((new Date(iso).getTime() - Date.now()) / 1000));
    app.decorate(
      'setAccessCookie',
      (req: FastifyRequest, reply: FastifyReply, token: string, tokenExpiresAt: string) => {
        reply.setCookie(ACCESS_TOKEN_COOKIE, token, {
          path: '/',
          httpOnly: true,
          sameSite: 'lax',
          secure: isHttps(req),
          maxAge: maxAgeUntil(tokenExpiresAt),
        });
      },
    );
    app.decorate(
      'setRefreshCookie',
      (req: FastifyRequest, reply: FastifyReply, refreshToken: string, sessionExpiresAt: string) => {
        reply.setCookie(REFRESH_TOKEN_COOKIE, refreshToken, {
          path: REFRESH_COOKIE_PATH,
          httpOnly: true,
          // Only our own pages refresh; a foreign page's request never carries it.
          sameSite: 'strict',
          secure: isHttps(req),
          maxAge: maxAgeUntil(sessionExpiresAt),
        });
      },
    );
    app.decorate('clearAuthCookies', (req: FastifyRequest, reply: FastifyReply) => {
      const secure = isHttps(req);
      reply.clearCookie(ACCESS_TOKEN_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure });
      reply.clearCookie(REFRESH_TOKEN_COOKIE, {
        path: REFRESH_COOKIE_PATH,
        httpOnly: true,
        sameSite: 'strict',
        secure,
      });
    });

    app.decorateRequest('user', null);
    app.decorateRequest('auth', null);

    function sameOrigin(req: FastifyRequest): boolean {
      // Neither Origin nor Fetch Metadata: not a browser (curl, a service), so not a forged
      // cross-site request.
      return foreignRequest(req) !== true;
    }

    app.addHook('onRequest', async (req, reply) => {
      const url = req.url;
      if (!(url === '/api' || url.startsWith('/api/') || url.startsWith('/api?'))) return;
      const tokens = requestTokens(req);
      const headerToken = tokens.some((t) => t.source !== 'cookie');

      const changesState = !SAFE_METHODS.has(req.method) || req.routeOptions.config?.changesState === true;
      if (changesState && !headerToken && !sameOrigin(req)) {
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
        req.user = result.user;
        req.auth = {
          sessionId: result.session_id,
          source,
          token,
          sessionExpiresAt: result.session_expires_at,
        };
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

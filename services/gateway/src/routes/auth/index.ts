import {
  AuthCheckResponseSchema,
  AuthProvidersSchema,
  DebugCookiesResponseSchema,
  discordLoginUrlRpc,
  ErrorResponseSchema,
  getProvidersRpc,
  GoogleCredentialRequestSchema,
  googleLoginUrlRpc,
  LocalSignInRequestSchema,
  LoginUrlResponseSchema,
  LogoutResponseSchema,
  OAuthCallbackQuerySchema,
  REFRESH_TOKEN_COOKIE,
  refreshSessionRpc,
  revokeSessionRpc,
  socketTicketRpc,
  SocketTicketResponseSchema,
  signInDiscordRpc,
  signInGoogleCodeRpc,
  signInGoogleRpc,
  signInLocalRpc,
  SIGN_IN_LOCAL_TIMEOUT_MS,
  type AuthCheckResponse,
  type OAuthSignInResult,
  type Rpc,
  type SignIn,
} from '@chronicler/contracts';
import { call, splitList } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestTokens } from '../../plugins/auth.ts';

/**
 * /api/auth/*: every route here is public (signing in cannot require being signed in);
 * the handlers only translate between HTTP and the auth service.
 */
export default async function authRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const pub = { public: true } as const;
  const signInCfg = { public: true, signIn: true } as const;
  const errors = {
    400: ErrorResponseSchema,
    401: ErrorResponseSchema,
    403: ErrorResponseSchema,
    429: ErrorResponseSchema,
  };

  const cfg = app.ctx.config;
  const allowedHosts = splitList(cfg.ALLOWED_HOSTS).map(parseHost);

  /**
   * The OAuth routes put our address into URLs that carry a code or a token (the redirect
   * URI, the post-sign-in redirect), so it must not come from a Host header anyone can
   * send: PUBLIC_URL when set; in cluster mode, where requests come through an ingress,
   * nothing else (the route refuses and names the variable); in embedded mode the request's
   * origin, when its Host is localhost, 127.0.0.1 or [::1] on our port, or in ALLOWED_HOSTS.
   */
  function trustedBase(req: FastifyRequest): { base: string } | { status: 400 | 500; detail: string } {
    if (cfg.PUBLIC_URL) return { base: new URL(cfg.PUBLIC_URL).origin };
    if (app.ctx.platform.mode === 'cluster') {
      req.log.error('OAuth sign-in refused: PUBLIC_URL is not set (required in cluster mode)');
      return { status: 500, detail: 'Sign-in with Discord or Google needs PUBLIC_URL in cluster mode.' };
    }
    if (!hostAllowed(req.host)) {
      req.log.warn({ host: req.host }, 'OAuth sign-in refused: Host not allowed');
      return { status: 400, detail: 'Invalid Host header' };
    }
    return { base: app.publicOrigin(req) };
  }

  function hostAllowed(raw: string): boolean {
    const host = parseHost(raw);
    if (!host) return false;
    const address = app.server.address();
    const port = typeof address === 'object' && address ? String(address.port) : undefined;
    if (LOOPBACK_NAMES.has(host.name)) {
      // Not listening (an injected request in a test): any port of this machine's names.
      if (port === undefined) return true;
      return host.port === port || (host.port === undefined && (port === '80' || port === '443'));
    }
    return allowedHosts.some(
      (entry) =>
        entry !== null && entry.name === host.name && (entry.port === undefined || entry.port === host.port),
    );
  }

  /** Both cookies of a signed-in session; the refresh credential never leaves its cookie. */
  const setCookies = (req: FastifyRequest, reply: FastifyReply, s: SignIn): void => {
    app.setAccessCookie(req, reply, s.token, s.token_expires_at);
    app.setRefreshCookie(req, reply, s.refresh_token, s.session_expires_at);
  };
  const answer = (req: FastifyRequest, reply: FastifyReply, s: SignIn): AuthCheckResponse => {
    setCookies(req, reply, s);
    return { authenticated: true, user: s.user, token: s.token };
  };

  /**
   * A provider that is not configured has no sign-in routes (404 with the reason), in
   * either mode and before anything else is asked of the request: not a 500 about
   * PUBLIC_URL, not a redirect.
   */
  const PROVIDER_NAMES = { discord: 'Discord', google: 'Google' } as const;
  async function refuseUnconfigured(provider: 'discord' | 'google', reply: FastifyReply): Promise<boolean> {
    const providers = await call(app.ctx.bus, getProvidersRpc, {});
    if (providers[provider]) return false;
    // Not `return reply`: a reply is thenable, and awaiting it would wait for the answer.
    void reply
      .code(404)
      .send({ detail: `Sign-in with ${PROVIDER_NAMES[provider]} is not configured on this server.` });
    return true;
  }

  app.get('/auth/providers', { config: pub, schema: { response: { 200: AuthProvidersSchema } } }, () =>
    call(app.ctx.bus, getProvidersRpc, {}),
  );

  const callbackPath = (provider: string) => `/api/auth/${provider}/callback`;
  const loginUrl = (provider: 'discord' | 'google', endpoint: Rpc) =>
    app.get(
      `/auth/${provider}/login`,
      {
        config: signInCfg,
        schema: {
          response: {
            200: LoginUrlResponseSchema,
            ...errors,
            404: ErrorResponseSchema,
            500: ErrorResponseSchema,
          },
        },
      },
      async (req, reply) => {
        if (await refuseUnconfigured(provider, reply)) return reply;
        const trusted = trustedBase(req);
        if (!('base' in trusted)) return reply.code(trusted.status).send({ detail: trusted.detail });
        return call(app.ctx.bus, endpoint as typeof discordLoginUrlRpc, {
          redirect_uri: `${trusted.base}${callbackPath(provider)}`,
        });
      },
    );
  loginUrl('discord', discordLoginUrlRpc);
  loginUrl('google', googleLoginUrlRpc);

  /**
   * The provider sends the browser here. Every outcome is a redirect: into the app with the
   * session in its cookies (never a token in the URL, where histories, logs and Referer
   * headers keep it), or back to the login page with a short error code, never a raw error
   * page; except for a provider that is not configured (404) and when there is no trusted
   * address to redirect to (see trustedBase).
   */
  const callback = (provider: 'discord' | 'google', endpoint: typeof signInDiscordRpc) =>
    app.get(
      `/auth/${provider}/callback`,
      { config: signInCfg, schema: { querystring: OAuthCallbackQuerySchema } },
      async (req, reply) => {
        if (await refuseUnconfigured(provider, reply)) return reply;
        const trusted = trustedBase(req);
        if (!('base' in trusted)) return reply.code(trusted.status).send({ detail: trusted.detail });
        const { base } = trusted;
        const { code, state, error } = req.query;
        let result: OAuthSignInResult;
        try {
          result = await call(app.ctx.bus, endpoint, { code, state, error });
        } catch (err) {
          req.log.error({ err, provider }, 'sign-in callback failed');
          result = { ok: false, error: 'server_error' };
        }
        if (!result.ok) return reply.redirect(`${base}/login?error=${encodeURIComponent(result.error)}`);
        setCookies(req, reply, result.signIn);
        return reply.redirect(`${base}/auth/callback`);
      },
    );
  callback('discord', signInDiscordRpc);
  callback('google', signInGoogleCodeRpc);

  app.post(
    '/auth/google/credential',
    {
      config: signInCfg,
      schema: { body: GoogleCredentialRequestSchema, response: { 200: AuthCheckResponseSchema, ...errors } },
    },
    async (req, reply) => answer(req, reply, await call(app.ctx.bus, signInGoogleRpc, req.body)),
  );

  app.post(
    '/auth/local',
    {
      config: signInCfg,
      schema: { body: LocalSignInRequestSchema, response: { 200: AuthCheckResponseSchema, ...errors } },
    },
    async (req, reply) =>
      answer(
        req,
        reply,
        await call(
          app.ctx.bus,
          signInLocalRpc,
          { ...req.body, client_address: req.ip },
          { timeoutMs: SIGN_IN_LOCAL_TIMEOUT_MS },
        ),
      ),
  );

  /** The signed-in user and the access token the request carried (none is minted here). */
  app.get('/auth/user', { config: pub, schema: { response: { 200: AuthCheckResponseSchema } } }, (req) => {
    if (!req.user || !req.auth) return { authenticated: false };
    return { authenticated: true, user: req.user, token: req.auth.token };
  });

  /**
   * The refresh credential (its cookie is sent here and nowhere else) buys a new access
   * token and a new credential, both as cookies, the token also in the body. Refused (401,
   * both cookies cleared) when it is missing, unknown, its session ended, or it was used
   * before: that revokes its session. A POST, so the auth plugin holds it to our own origin.
   */
  app.post(
    '/auth/refresh',
    { config: pub, schema: { response: { 200: AuthCheckResponseSchema, 401: ErrorResponseSchema } } },
    async (req, reply) => {
      const refreshToken = req.cookies[REFRESH_TOKEN_COOKIE];
      if (!refreshToken || refreshToken.length > 512) {
        app.clearAuthCookies(req, reply);
        return reply.code(401).send({ detail: 'Authentication required' });
      }
      try {
        return answer(
          req,
          reply,
          await call(app.ctx.bus, refreshSessionRpc, { refresh_token: refreshToken }),
        );
      } catch (err) {
        app.clearAuthCookies(req, reply);
        throw err;
      }
    },
  );

  /**
   * A one-time code for a browser WebSocket (`?ticket=`), which cannot send a header and
   * must not carry a token in its URL. Signed-in callers only.
   */
  app.post(
    '/auth/socket-ticket',
    { schema: { response: { 200: SocketTicketResponseSchema, 401: ErrorResponseSchema } } },
    async (req, reply) => {
      if (!req.auth) return reply.code(401).send({ detail: 'Authentication required' });
      return call(app.ctx.bus, socketTicketRpc, { session_id: req.auth.sessionId });
    },
  );

  app.get(
    '/auth/logout',
    {
      // A GET, but it ends sessions: the auth plugin refuses it from a foreign origin.
      config: { public: true, changesState: true },
      schema: { response: { 200: LogoutResponseSchema, 403: ErrorResponseSchema } },
    },
    async (req, reply) => {
      // Every token the request carries is revoked, valid or merely expired: cookie and
      // header may belong to different sessions, and logging out should end them all. A
      // revoked session's refresh credentials are refused from then on.
      const tokens = new Set(requestTokens(req).map((t) => t.token));
      if (req.auth) tokens.add(req.auth.token);
      for (const token of tokens) {
        if (token.split('.').length !== 3) continue;
        const r = await call(app.ctx.bus, revokeSessionRpc, { token });
        // This replica forgets at once; the others when the revocation event reaches them.
        if (r.session_id) app.forgetSession(r.session_id);
      }
      app.clearAuthCookies(req, reply);
      // Sessions read are kept in the browser's HTTP cache to revalidate (ETag): a signed-out
      // browser, perhaps a shared one, keeps none of them.
      reply.header('clear-site-data', '"cache"');
      return { message: 'Logged out' };
    },
  );

  app.get(
    '/auth/debug-cookies',
    { config: pub, schema: { response: { 200: DebugCookiesResponseSchema } } },
    (req) => ({
      access_token_present: Boolean(req.cookies.access_token),
    }),
  );
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `name`, `name:port` or `[v6]:port`, lowercased; null when it is none of those. */
function parseHost(value: string): { name: string; port: string | undefined } | null {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]\s/@]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  return m ? { name: m[1]!.toLowerCase(), port: m[2] } : null;
}

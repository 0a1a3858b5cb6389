import {
  AuthCheckResponseSchema,
  AuthProvidersSchema,
  DebugCookiesResponseSchema,
  discordLoginUrlRpc,
  ErrorResponseSchema,
  getProvidersRpc,
  GoogleCredentialRequestSchema,
  googleLoginUrlRpc,
  issueTokenRpc,
  LocalSignInRequestSchema,
  LoginUrlResponseSchema,
  LogoutResponseSchema,
  OAuthCallbackQuerySchema,
  revokeSessionRpc,
  signInDiscordRpc,
  signInGoogleCodeRpc,
  signInGoogleRpc,
  signInLocalRpc,
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

  const answer = (req: FastifyRequest, reply: FastifyReply, s: SignIn): AuthCheckResponse => {
    app.setAccessCookie(req, reply, s.token, s.session_expires_at);
    return { authenticated: true, user: s.user, token: s.token };
  };

  app.get('/auth/providers', { config: pub, schema: { response: { 200: AuthProvidersSchema } } }, () =>
    call(app.ctx.bus, getProvidersRpc, {}),
  );

  const callbackPath = (provider: string) => `/api/auth/${provider}/callback`;
  const loginUrl = (provider: 'discord' | 'google', endpoint: Rpc) =>
    app.get(
      `/auth/${provider}/login`,
      {
        config: signInCfg,
        schema: { response: { 200: LoginUrlResponseSchema, ...errors, 500: ErrorResponseSchema } },
      },
      async (req, reply) => {
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
   * The provider sends the browser here. Every outcome is a redirect: into the app with
   * the token, or back to the login page with a short error code, never a raw error page;
   * except when there is no trusted address to redirect to (see trustedBase).
   */
  const callback = (provider: 'discord' | 'google', endpoint: typeof signInDiscordRpc) =>
    app.get(
      `/auth/${provider}/callback`,
      { config: signInCfg, schema: { querystring: OAuthCallbackQuerySchema } },
      async (req, reply) => {
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
        app.setAccessCookie(req, reply, result.signIn.token, result.signIn.session_expires_at);
        return reply.redirect(`${base}/auth/callback?token=${encodeURIComponent(result.signIn.token)}`);
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
      answer(req, reply, await call(app.ctx.bus, signInLocalRpc, { ...req.body, client_address: req.ip })),
  );

  app.get(
    '/auth/user',
    { config: pub, schema: { response: { 200: AuthCheckResponseSchema } } },
    async (req, reply) => {
      if (!req.user || !req.auth) return { authenticated: false };
      const fresh = await call(app.ctx.bus, issueTokenRpc, { session_id: req.auth.sessionId });
      if (req.auth.source === 'cookie')
        app.setAccessCookie(req, reply, fresh.token, fresh.session_expires_at);
      return { authenticated: true, user: req.user, token: fresh.token };
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
      // header may belong to different sessions, and logging out should end them all.
      const tokens = new Set(requestTokens(req).map((t) => t.token));
      if (req.auth) tokens.add(req.auth.token);
      for (const token of tokens) {
        if (token.split('.').length !== 3) continue;
        const r = await call(app.ctx.bus, revokeSessionRpc, { token });
        // This replica forgets at once; the others when the revocation event reaches them.
        if (r.session_id) app.forgetSession(r.session_id);
      }
      app.clearAccessCookie(req, reply);
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

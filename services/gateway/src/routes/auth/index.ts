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
  OAuthCallbackRequestSchema,
  revokeSessionRpc,
  signInDiscordRpc,
  signInGoogleCodeRpc,
  signInGoogleRpc,
  signInLocalRpc,
  type AuthCheckResponse,
  type GoogleCredentialRequest,
  type LocalSignInRequest,
  type OAuthCallbackRequest,
  type OAuthSignInResult,
  type Rpc,
  type SignIn,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requestTokens } from '../../plugins/auth.ts';

/**
 * /api/auth/*: every route here is public (signing in cannot require being signed in);
 * the handlers only translate between HTTP and the auth service.
 */
export default async function authRoutes(app: FastifyInstance): Promise<void> {
  const pub = { public: true } as const;
  const signInCfg = { public: true, signIn: true } as const;
  const errors = {
    400: ErrorResponseSchema,
    401: ErrorResponseSchema,
    403: ErrorResponseSchema,
    429: ErrorResponseSchema,
  };

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
      { config: signInCfg, schema: { response: { 200: LoginUrlResponseSchema, ...errors } } },
      (req) =>
        call(app.ctx.bus, endpoint as typeof discordLoginUrlRpc, {
          redirect_uri: `${app.publicOrigin(req)}${callbackPath(provider)}`,
        }),
    );
  loginUrl('discord', discordLoginUrlRpc);
  loginUrl('google', googleLoginUrlRpc);

  /**
   * The provider sends the browser here. Every outcome is a redirect: into the app with
   * the token, or back to the login page with a short error code, never a raw error page.
   */
  const callback = (provider: 'discord' | 'google', endpoint: typeof signInDiscordRpc) =>
    app.get<{ Querystring: OAuthCallbackRequest }>(
      `/auth/${provider}/callback`,
      { config: signInCfg, schema: { querystring: Type.Partial(OAuthCallbackRequestSchema) } },
      async (req, reply) => {
        const { code, state, error } = req.query;
        const base = app.publicOrigin(req);
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

  app.post<{ Body: GoogleCredentialRequest }>(
    '/auth/google/credential',
    {
      config: signInCfg,
      schema: { body: GoogleCredentialRequestSchema, response: { 200: AuthCheckResponseSchema, ...errors } },
    },
    async (req, reply) => answer(req, reply, await call(app.ctx.bus, signInGoogleRpc, req.body)),
  );

  app.post<{ Body: LocalSignInRequest }>(
    '/auth/local',
    {
      config: signInCfg,
      schema: { body: LocalSignInRequestSchema, response: { 200: AuthCheckResponseSchema, ...errors } },
    },
    async (req, reply) => answer(req, reply, await call(app.ctx.bus, signInLocalRpc, req.body)),
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
    { config: pub, schema: { response: { 200: LogoutResponseSchema } } },
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

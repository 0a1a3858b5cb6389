import { createHash, randomBytes } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/**
 * A local stand-in for Discord's OAuth2 endpoints and Google's OpenID Connect pieces
 * (JWKS, authorization and token endpoints), speaking their wire formats: form-encoded
 * token requests, `{"error": "invalid_grant"}` for bad or reused codes, bearer-token user
 * lookups, RS256 ID tokens. Switches make it fail the way the real ones do.
 */
interface DiscordUser {
  id: string;
  username: string;
  global_name: string | null;
  avatar: string | null;
  email?: string;
  verified?: boolean;
}

/** The Discord account a test user signs in as: their name as display name, a verified email. */
export function discordUserFor(user: { id: string; username: string }): DiscordUser {
  return {
    id: user.id,
    username: user.username,
    global_name: user.username,
    avatar: null,
    email: `${user.username}@example.com`,
    verified: true,
  };
}

interface IdTokenOptions {
  sub?: string;
  aud?: string;
  iss?: string;
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
  email?: string;
  emailVerified?: boolean;
  name?: string;
  picture?: string;
  /** Sign with a key Google never published, under the published key's id. */
  foreignKey?: boolean;
}

export interface OAuthPeer {
  readonly url: string;
  /** DISCORD_API_BASE */
  readonly discordApiBase: string;
  /** DISCORD_OAUTH_AUTHORIZE_URL */
  readonly discordAuthorizeUrl: string;
  readonly googleJwksUrl: string;
  readonly googleAuthorizeUrl: string;
  readonly googleTokenUrl: string;
  readonly discord: { clientId: string; clientSecret: string };
  readonly google: { clientId: string; clientSecret: string };
  /** Who consents at the authorize endpoints. */
  discordUser: DiscordUser;
  /**
   * The servers of each Discord user (by id) as GET /users/@me/guilds answers them (scope
   * `guilds`): `permissions` the decimal bit set. Unlisted users are in none.
   */
  discordGuilds: Map<string, DiscordGuild[]>;
  googleProfile: IdTokenOptions;
  /** `deny`: the authorize endpoints send the user back with error=access_denied. */
  consent: 'allow' | 'deny';
  /** Failure switches for the token and user endpoints. */
  failure: { status?: number; delayMs?: number } | null;
  /** Requests the token endpoints received. */
  readonly tokenRequests: Record<string, string>[];
  /** The env the auth service needs to use this peer. */
  env(provider: 'discord' | 'google' | 'both'): Record<string, string>;
  mintIdToken(opts?: IdTokenOptions): Promise<string>;
  close(): Promise<void>;
}

interface DiscordGuild {
  id: string;
  name: string;
  owner?: boolean;
  permissions: string;
}

interface IssuedCode {
  provider: 'discord' | 'google';
  clientId: string;
  redirectUri: string;
  challenge: string;
  used: boolean;
}

export async function startOAuthPeer(): Promise<OAuthPeer> {
  const app = Fastify({ logger: false });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const foreign = await generateKeyPair('RS256');
  const kid = randomBytes(8).toString('hex');
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };

  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, DiscordUser>();

  const peer = {
    url: '',
    discordApiBase: '',
    discordAuthorizeUrl: '',
    googleJwksUrl: '',
    googleAuthorizeUrl: '',
    googleTokenUrl: '',
    discord: {
      clientId: '111222333444555666',
      clientSecret: 'discord-secret-' + randomBytes(6).toString('hex'),
    },
    google: {
      clientId: 'test-client.apps.googleusercontent.com',
      clientSecret: 'google-secret-' + randomBytes(6).toString('hex'),
    },
    discordUser: {
      id: '80351110224678912',
      username: 'nelly',
      global_name: 'Nelly',
      avatar: '8342729096ea3675442027381ff50dfe',
      email: 'nelly@example.com',
      verified: true,
    } as DiscordUser,
    discordGuilds: new Map<string, DiscordGuild[]>(),
    googleProfile: {} as IdTokenOptions,
    consent: 'allow' as 'allow' | 'deny',
    failure: null as { status?: number; delayMs?: number } | null,
    tokenRequests: [] as Record<string, string>[],
    env(provider: 'discord' | 'google' | 'both'): Record<string, string> {
      const d = {
        DISCORD_CLIENT_ID: peer.discord.clientId,
        DISCORD_CLIENT_SECRET: peer.discord.clientSecret,
        DISCORD_API_BASE: peer.discordApiBase,
        DISCORD_OAUTH_AUTHORIZE_URL: peer.discordAuthorizeUrl,
      };
      const g = {
        GOOGLE_CLIENT_ID: peer.google.clientId,
        GOOGLE_CLIENT_SECRET: peer.google.clientSecret,
        GOOGLE_JWKS_URL: peer.googleJwksUrl,
        GOOGLE_AUTHORIZE_URL: peer.googleAuthorizeUrl,
        GOOGLE_TOKEN_URL: peer.googleTokenUrl,
      };
      return provider === 'discord' ? d : provider === 'google' ? g : { ...d, ...g };
    },
    async mintIdToken(opts: IdTokenOptions = {}): Promise<string> {
      const o = { ...peer.googleProfile, ...opts };
      const now = Math.floor(Date.now() / 1000);
      const exp = now + (o.expiresIn ?? 3600);
      return new SignJWT({
        email: o.email ?? 'gm@example.com',
        email_verified: o.emailVerified ?? true,
        name: o.name ?? 'Game Master',
        picture: o.picture ?? 'https://lh3.googleusercontent.com/a/test-avatar',
      })
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setSubject(o.sub ?? '109876543210987654321')
        .setIssuer(o.iss ?? 'https://accounts.google.com')
        .setAudience(o.aud ?? peer.google.clientId)
        .setIssuedAt(Math.min(now, exp - 60))
        .setExpirationTime(exp)
        .sign((o.foreignKey ? foreign.privateKey : privateKey) as CryptoKey);
    },
    async close() {
      await app.close();
    },
  };

  /** Applies the failure switches: a delay, then an error status like the real APIs send. */
  async function misbehave(reply: FastifyReply): Promise<boolean> {
    const f = peer.failure;
    if (!f) return false;
    if (f.delayMs) await new Promise((r) => setTimeout(r, f.delayMs));
    if (!f.status) return false;
    if (f.status === 429) {
      await reply
        .code(429)
        .header('retry-after', '2')
        .send({ message: 'You are being rate limited.', retry_after: 2, global: false });
    } else {
      await reply.code(f.status).type('text/html').send('<html><body>upstream error</body></html>');
    }
    return true;
  }

  function authorize(provider: 'discord' | 'google') {
    return async (req: FastifyRequest<{ Querystring: Record<string, string> }>, reply: FastifyReply) => {
      const q = req.query;
      const expected = provider === 'discord' ? peer.discord.clientId : peer.google.clientId;
      if (q.client_id !== expected || q.response_type !== 'code' || !q.redirect_uri) {
        return reply.code(400).send({ error: 'invalid_request' });
      }
      const back = new URL(q.redirect_uri);
      if (q.state) back.searchParams.set('state', q.state);
      if (peer.consent === 'deny') {
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set(
          'error_description',
          'The resource owner or authorization server denied the request',
        );
        return reply.redirect(back.toString());
      }
      if (q.code_challenge_method !== 'S256' || !q.code_challenge)
        return reply.code(400).send({ error: 'invalid_request' });
      const code = randomBytes(16).toString('hex');
      codes.set(code, {
        provider,
        clientId: q.client_id,
        redirectUri: q.redirect_uri,
        challenge: q.code_challenge,
        used: false,
      });
      back.searchParams.set('code', code);
      return reply.redirect(back.toString());
    };
  }

  function token(provider: 'discord' | 'google') {
    return async (req: FastifyRequest, reply: FastifyReply) => {
      const body = (req.body ?? {}) as Record<string, string>;
      peer.tokenRequests.push({ provider, ...body });
      if (await misbehave(reply)) return reply;
      let clientId = body.client_id;
      let clientSecret = body.client_secret;
      const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (basic) [clientId, clientSecret] = Buffer.from(basic, 'base64').toString().split(':');
      const creds = provider === 'discord' ? peer.discord : peer.google;
      if (clientId !== creds.clientId || clientSecret !== creds.clientSecret) {
        return reply.code(401).send({ error: 'invalid_client' });
      }
      if (body.grant_type !== 'authorization_code')
        return reply.code(400).send({ error: 'unsupported_grant_type' });
      const issued = codes.get(body.code ?? '');
      const verifierOk =
        issued &&
        createHash('sha256')
          .update(body.code_verifier ?? '')
          .digest('base64url') === issued.challenge;
      if (
        !issued ||
        issued.used ||
        issued.provider !== provider ||
        issued.redirectUri !== body.redirect_uri ||
        !verifierOk
      ) {
        if (issued) issued.used = true;
        return reply
          .code(400)
          .send({ error: 'invalid_grant', error_description: 'Invalid "code" in request.' });
      }
      issued.used = true;
      const accessToken = randomBytes(16).toString('hex');
      if (provider === 'discord') {
        accessTokens.set(accessToken, { ...peer.discordUser });
        return {
          access_token: accessToken,
          token_type: 'Bearer',
          expires_in: 604800,
          refresh_token: randomBytes(8).toString('hex'),
          scope: 'identify email guilds',
        };
      }
      return {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: 3599,
        scope: 'openid email profile',
        id_token: await peer.mintIdToken(),
      };
    };
  }

  app.get('/oauth2/authorize', authorize('discord'));
  app.post('/api/v10/oauth2/token', token('discord'));
  app.get('/api/v10/users/@me', async (req, reply) => {
    if (await misbehave(reply)) return reply;
    const user = accessTokens.get(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
    if (!user) return reply.code(401).send({ message: '401: Unauthorized', code: 0 });
    return user;
  });
  app.get('/api/v10/users/@me/guilds', async (req, reply) => {
    if (await misbehave(reply)) return reply;
    const user = accessTokens.get(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '');
    if (!user) return reply.code(401).send({ message: '401: Unauthorized', code: 0 });
    return (peer.discordGuilds.get(user.id) ?? []).map((g) => ({
      id: g.id,
      name: g.name,
      icon: null,
      banner: null,
      owner: g.owner ?? false,
      permissions: g.permissions,
      features: [],
    }));
  });
  app.get('/google/o/oauth2/v2/auth', authorize('google'));
  app.post('/google/token', token('google'));
  app.get('/google/oauth2/v3/certs', () => ({ keys: [publicJwk] }));

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  Object.assign(peer, {
    url,
    discordApiBase: `${url}/api/v10`,
    discordAuthorizeUrl: `${url}/oauth2/authorize`,
    googleJwksUrl: `${url}/google/oauth2/v3/certs`,
    googleAuthorizeUrl: `${url}/google/o/oauth2/v2/auth`,
    googleTokenUrl: `${url}/google/token`,
  });
  return peer;
}

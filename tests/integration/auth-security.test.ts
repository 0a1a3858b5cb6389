import { sessionRevokedEvent, type AuthCheckResponse, type AuthProviders } from '@chronicler/contracts';
import { createLogger, loadConfig, type Platform } from '@chronicler/kit';
import type { FastifyInstance } from 'fastify';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// A second gateway replica built from the gateway's own code, on the same bus, database
// and Redis as the system: it carries test-only routes (a protected one, an admin one, a
// write) so the guard is tested on real routes, and it shows revocation across replicas.
import { buildApp } from '../../services/gateway/src/app.ts';
import { GatewayConfigSchema } from '../../services/gateway/src/config.ts';
import { authUser, localPassword, localSignIn, sessionIdOf, setCookie } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

const SECRET = 'test-secret-' + randomUUID() + randomUUID();
const ISSUER = 'chronicler';
const AUDIENCE = 'chronicler-web';

describe(`tokens, guard and gateway security (${testMode} mode)`, () => {
  let system: TestSystem;
  let platform: Platform;
  let replica: FastifyInstance;

  beforeAll(async () => {
    system = await startSystem({
      env: {
        AUTH_JWT_SECRET: SECRET,
        // The cluster keeps the local account off unless told otherwise.
        AUTH_LOCAL_ENABLED: testMode === 'cluster' ? 'true' : '',
        DISCORD_BOT_INVITE_URL: 'https://discord.com/oauth2/authorize?client_id=42&scope=bot',
        RATE_LIMIT_SIGN_IN_MAX: '1000',
      },
    });
    platform = system.platform!;
    const config = loadConfig(GatewayConfigSchema, {
      ...system.env,
      PORT: '0',
      RATE_LIMIT_SIGN_IN_MAX: '3',
      RATE_LIMIT_USER_MAX: '5',
      // The replica stands behind a proxy on loopback, so each test's X-Forwarded-For is its own client.
      TRUST_PROXY: '127.0.0.1',
    });
    replica = await buildApp({
      name: 'gateway',
      version: '0.0.0-test',
      instance: 'test-replica',
      config,
      bus: platform.bus,
      db: platform.db,
      schema: 'gateway',
      coord: platform.coord,
      logger: createLogger('gateway-replica', { level: 'warn' }),
      platform,
    });
    replica.get('/api/test/protected', async (req) => ({ user: req.user?.id }));
    replica.post('/api/test/write', async (req) => ({ user: req.user?.id }));
    replica.get('/api/admin/test', async () => ({ ok: true }));
    await replica.ready();
  });
  afterAll(async () => {
    await replica?.close();
    await system?.stop();
  });

  const onReplica = (url: string, headers: Record<string, string> = {}, method: 'GET' | 'POST' = 'GET') =>
    replica.inject({ method, url, headers, ...(method === 'POST' ? { payload: {} } : {}) });
  const sign = (
    claims: Record<string, unknown>,
    opts: { secret?: string; exp?: number; iss?: string; aud?: string } = {},
  ) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(String(claims.sub))
      .setIssuer(opts.iss ?? ISSUER)
      .setAudience(opts.aud ?? AUDIENCE)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(new TextEncoder().encode(opts.secret ?? SECRET));

  it('offers the local account when no provider is configured, and serves /api/config', async () => {
    const providers = (await (await fetch(`${system.url}/api/auth/providers`)).json()) as AuthProviders;
    // A fresh instance: no account yet, so the login page opens on "Create account".
    expect(providers).toEqual({
      discord: false,
      google: false,
      google_client_id: null,
      local: true,
      first_account: true,
    });
    const config = await (await fetch(`${system.url}/api/config`)).json();
    expect(config).toEqual({
      bot_invite_url: 'https://discord.com/oauth2/authorize?client_id=42&scope=bot',
      community_url: null,
      speech_provider: null,
    });
  });

  it('a new user creates a local account; the same name (any case) is the same account', async () => {
    const res = await fetch(`${system.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: system.url },
      body: JSON.stringify({ username: '  Alice  ', password: localPassword('alice'), create: true }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as AuthCheckResponse;
    expect(body).toMatchObject({
      authenticated: true,
      user: { username: 'Alice', avatar: null, discord_id: null, is_admin: false },
    });
    const cookie = setCookie(res, 'access_token')!;
    expect(cookie.value).toBe(body.token);
    expect(cookie.attributes).toMatch(/HttpOnly/i);
    expect(cookie.attributes).toMatch(/SameSite=Lax/i);
    expect(cookie.attributes).not.toMatch(/Secure/i);
    const claims = decodeJwt(body.token!);
    expect(claims).toMatchObject({ iss: ISSUER, aud: AUDIENCE, sub: body.user!.id });
    expect(claims.exp! - claims.iat!).toBe(15 * 60);
    expect(claims.jti).toBeTruthy();
    // An account exists: the login page opens on "Sign in" from now on.
    const providers = (await (await fetch(`${system.url}/api/auth/providers`)).json()) as AuthProviders;
    expect(providers.first_account).toBe(false);
    const again = await localSignIn(system.url, 'alice');
    expect(again.body.user?.id).toBe(body.user!.id);
  });

  it('refuses a blank local name with 400', async () => {
    const res = await fetch(`${system.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: '   ', password: 'long-enough-password' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'Username cannot be empty.' });
  });

  it('accepts the token from the cookie, Authorization: Bearer and auth-token, and answers that token', async () => {
    const { cookie } = await localSignIn(system.url, 'bob');
    const ways: Record<string, string>[] = [
      { cookie: `access_token=${cookie}` },
      { authorization: `Bearer ${cookie}` },
      { 'auth-token': cookie },
    ];
    for (const headers of ways) {
      const me = await authUser(system.url, headers);
      expect(me).toMatchObject({ authenticated: true, user: { username: 'bob' } });
      // A valid token buys no other: new tokens come only from the refresh credential.
      expect(me.token).toBe(cookie);
      expect(decodeJwt(me.token!).sid).toBe(sessionIdOf(cookie));
    }
    expect(await authUser(system.url, {})).toEqual({ authenticated: false });
    const debug = await fetch(`${system.url}/api/auth/debug-cookies`, {
      headers: { cookie: `access_token=${cookie}` },
    });
    expect(await debug.json()).toEqual({ access_token_present: true });
    expect(await (await fetch(`${system.url}/api/auth/debug-cookies`)).json()).toEqual({
      access_token_present: false,
    });
  });

  it('the guard answers 401 without a token and lets a valid one through', async () => {
    const none = await onReplica('/api/test/protected');
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ detail: 'Authentication required' });
    const { body, cookie } = await localSignIn(system.url, 'carol');
    const ok = await onReplica('/api/test/protected', { authorization: `Bearer ${cookie}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ user: body.user!.id });
  });

  it('refuses tampered, alg:none, foreign-key, wrong iss/aud and non-JWT tokens with 401', async () => {
    const { body, cookie } = await localSignIn(system.url, 'dave');
    const sid = sessionIdOf(cookie);
    const [h, p, s] = cookie.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const tamperedPayload = Buffer.from(JSON.stringify({ ...payload, sub: randomUUID() })).toString(
      'base64url',
    );
    const bad = [
      `${h}.${tamperedPayload}.${s}`,
      `${h}.${p}.${s!.slice(0, -2)}${s!.endsWith('AA') ? 'BB' : 'AA'}`,
      new UnsecuredJWT({ sid, sub: body.user!.id, jti: randomUUID() })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setExpirationTime('10m')
        .encode(),
      await sign({ sub: body.user!.id, sid }, { secret: 'another-secret-that-is-long-enough-to-use' }),
      await sign({ sub: body.user!.id, sid }, { iss: 'someone-else' }),
      await sign({ sub: body.user!.id, sid }, { aud: 'another-app' }),
      'not-a-jwt',
    ];
    for (const token of bad) {
      const res = await onReplica('/api/test/protected', { authorization: `Bearer ${token}` });
      expect(res.statusCode, token).toBe(401);
      expect(res.json()).toEqual({ detail: 'Authentication required' });
      expect(await authUser(system.url, { cookie: `access_token=${token}` })).toEqual({
        authenticated: false,
      });
    }
    // The genuine token still works: the refusals were about the tokens, not the session.
    expect((await onReplica('/api/test/protected', { authorization: `Bearer ${cookie}` })).statusCode).toBe(
      200,
    );
  });

  it('an expired token is refused even from the cookie while its session lives, and every token once the session has ended', async () => {
    const { body, cookie } = await localSignIn(system.url, 'erin');
    const sid = sessionIdOf(cookie);
    const expired = await sign({ sub: body.user!.id, sid }, { exp: Math.floor(Date.now() / 1000) - 60 });
    const refused = await onReplica('/api/test/protected', { cookie: `access_token=${expired}` });
    expect(refused.statusCode).toBe(401);
    expect(refused.cookies.find((c) => c.name === 'access_token')).toBeUndefined();
    expect((await onReplica('/api/test/protected', { cookie: `access_token=${cookie}` })).statusCode).toBe(
      200,
    );

    await platform.db.query(
      `update auth.sessions set expires_at = now() - interval '1 second' where id = $1`,
      [sid],
    );
    const after = await sign({ sub: body.user!.id, sid }, { exp: Math.floor(Date.now() / 1000) - 30 });
    const res = await onReplica('/api/test/protected', { authorization: `Bearer ${after}` });
    expect(res.statusCode).toBe(401);
  });

  it('logout revokes the session: a copied token stops working at once, on every gateway', async () => {
    const { cookie } = await localSignIn(system.url, 'frank');
    // Both gateways have checked (and cached) the token before the logout.
    expect((await authUser(system.url, { authorization: `Bearer ${cookie}` })).authenticated).toBe(true);
    expect((await onReplica('/api/test/protected', { authorization: `Bearer ${cookie}` })).statusCode).toBe(
      200,
    );
    expect(await replica.authenticateHandshake(cookie)).toMatchObject({ username: 'frank' });

    const revoked = new Promise<unknown>((resolve) => {
      const sub = platform.bus.subscribe(sessionRevokedEvent.subject, (payload) => {
        resolve(payload);
        void sub.unsubscribe();
      });
    });
    const out = await fetch(`${system.url}/api/auth/logout`, {
      headers: { cookie: `access_token=${cookie}` },
    });
    expect(out.status).toBe(200);
    const cleared = setCookie(out, 'access_token')!;
    expect(cleared.value).toBe('');
    expect(cleared.attributes).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/i);
    expect(await revoked).toMatchObject({ session_id: sessionIdOf(cookie) });

    expect(await authUser(system.url, { authorization: `Bearer ${cookie}` })).toEqual({
      authenticated: false,
    });
    await waitFor(
      async () =>
        (await onReplica('/api/test/protected', { authorization: `Bearer ${cookie}` })).statusCode === 401,
    );
    expect(await replica.authenticateHandshake(cookie)).toBeNull();
    const rows = await platform.db.query<{ revoked_at: Date | null }>(
      `select revoked_at from auth.sessions where id = $1`,
      [sessionIdOf(cookie)],
    );
    expect(rows[0]?.revoked_at).toBeTruthy();
  });

  it('refuses a cross-origin write authenticated by the cookie alone (403), allows same-origin and header tokens', async () => {
    const { cookie } = await localSignIn(system.url, 'grace');
    const post = (headers: Record<string, string>) =>
      fetch(`${system.url}/api/auth/local`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: `access_token=${cookie}`, ...headers },
        body: JSON.stringify({ username: 'mallory', password: localPassword('mallory'), create: true }),
      });
    const evil = await post({ origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toEqual({ detail: 'Cross-origin request refused' });
    expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post({ origin: 'null' })).status).toBe(403);
    expect((await post({ origin: system.url, 'sec-fetch-site': 'same-origin' })).status).toBe(200);

    const cross = await onReplica(
      '/api/test/write',
      { cookie: `access_token=${cookie}`, origin: 'https://evil.example' },
      'POST',
    );
    expect(cross.statusCode).toBe(403);
    const withHeader = await onReplica(
      '/api/test/write',
      { authorization: `Bearer ${cookie}`, origin: 'https://evil.example' },
      'POST',
    );
    expect(withHeader.statusCode).toBe(200);
  });

  it('admin routes answer 403 to users and 200 to admins from the database', async () => {
    const { body, cookie } = await localSignIn(system.url, 'heidi');
    expect((await onReplica('/api/admin/test', { authorization: `Bearer ${cookie}` })).statusCode).toBe(403);
    expect((await onReplica('/api/admin/test')).statusCode).toBe(401);
    await platform.db.query(`update auth.users set is_admin = true where id = $1`, [body.user!.id]);
    const admin = await localSignIn(system.url, 'heidi');
    expect(admin.body.user?.is_admin).toBe(true);
    expect((await onReplica('/api/admin/test', { authorization: `Bearer ${admin.cookie}` })).statusCode).toBe(
      200,
    );
  });

  it('rate-limits sign-in per address and requests per user with 429 and Retry-After', async () => {
    const ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.7`;
    const signIn = () =>
      replica.inject({
        method: 'POST',
        url: '/api/auth/local',
        headers: { 'x-forwarded-for': ip },
        payload: { username: `ivan-${ip}`, password: localPassword(`ivan-${ip}`), create: true },
      });
    for (let i = 0; i < 3; i++) expect((await signIn()).statusCode).toBe(200);
    const limited = await signIn();
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(limited.json()).toEqual({ detail: 'Too many requests. Please try again later.' });

    const { cookie } = await localSignIn(system.url, `judy-${ip}`);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push(
        (await onReplica('/api/test/protected', { authorization: `Bearer ${cookie}` })).statusCode,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('bounds request bodies at 1 MiB', async () => {
    const res = await fetch(`${system.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(res.status).toBe(413);
  });

  it('sends security headers with a CSP for the web app; HSTS and Secure cookies only over https', async () => {
    const res = await fetch(`${system.url}/api/health`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self' https://accounts.google.com/gsi/client");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('strict-transport-security')).toBeNull();

    const https = await replica.inject({
      method: 'POST',
      url: '/api/auth/local',
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '10.255.0.1' },
      payload: { username: 'kim', password: localPassword('kim'), create: true },
    });
    expect(https.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(https.cookies.find((c) => c.name === 'access_token')?.secure).toBe(true);
  });
});

describe.runIf(testMode === 'embedded')('embedded mode without AUTH_JWT_SECRET', () => {
  it('generates a secret once and keeps it: a token survives a restart', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-secret-'));
    try {
      const first = await startSystem({ env: { DATA_DIR: dataDir, AUTH_JWT_SECRET: '' } });
      let token: string;
      try {
        token = (await localSignIn(first.url, 'restart')).cookie;
      } finally {
        await first.stop();
      }
      const second = await startSystem({ env: { DATA_DIR: dataDir, AUTH_JWT_SECRET: '' } });
      try {
        expect(await authUser(second.url, { authorization: `Bearer ${token}` })).toMatchObject({
          authenticated: true,
          user: { username: 'restart' },
        });
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Two whole-system boots on one data directory: a limit sized for that work, not the
    // 30 s default of a single request-level test (it timed out on a busy 2-core machine).
  }, 120_000);
});

import {
  INVALID_CREDENTIALS_MESSAGE,
  type AuthCheckResponse,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { createLogger, loadConfig, type Platform } from '@chronicler/kit';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
// A second gateway built from the gateway's own code on the system's bus, with its own
// configuration (PUBLIC_URL), to show what that setting changes.
import { buildApp } from '../../services/gateway/src/app.ts';
import { GatewayConfigSchema } from '../../services/gateway/src/config.ts';
import { startOAuthPeer, type OAuthPeer } from '../peers/oauth.ts';
import { apiCall } from '../support/api.ts';
import { authUser, localSignIn, sessionIdOf, setCookie } from '../support/auth.ts';
import { freePort, startSystem, testMode, type TestSystem } from '../support/system.ts';

const SECRET = 'security-auth-' + randomUUID() + randomUUID();

/** POST /api/auth/local with exactly this body. */
const postLocal = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** A GET with any Host header (fetch will not send a foreign one): status, headers, body. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; location: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on('error', reject);
  });
}

describe(`security of sign-in, tokens and sockets (${testMode} mode)`, () => {
  let system: TestSystem;
  let platform: Platform;

  beforeAll(async () => {
    system = await startSystem({
      env: {
        AUTH_JWT_SECRET: SECRET,
        AUTH_LOCAL_ENABLED: 'true',
        RATE_LIMIT_SIGN_IN_MAX: '1000',
        AUTH_LOCAL_MAX_FAILURES: '3',
      },
    });
    platform = system.platform!;
  });
  afterAll(async () => {
    await system?.stop();
  });

  const passwordHash = async (localName: string): Promise<string | null | undefined> =>
    (
      await platform.db.query<{ password_hash: string | null }>(
        `select password_hash from auth.users where local_name = $1`,
        [localName],
      )
    )[0]?.password_hash;

  describe('defect 1: local accounts have a password', () => {
    it('a name without a password gets no token: {"username":"  probea "} answers 400 and sets no cookie', async () => {
      const created = await postLocal(system.url, {
        username: 'ProbeA',
        password: 'probea-password',
        create: true,
      });
      expect(created.status).toBe(200);
      const probeA = (await created.json()) as AuthCheckResponse;

      const res = await postLocal(system.url, { username: '  probea ' });
      expect(res.status).toBe(400);
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toEqual({ detail: expect.stringMatching(/password/i) });
      expect(body.token).toBeUndefined();
      expect(setCookie(res, 'access_token')).toBeUndefined();

      // The name still matches trimmed and in any case, with the right password only.
      const right = await postLocal(system.url, { username: '  probea ', password: 'probea-password' });
      expect(right.status).toBe(200);
      expect(((await right.json()) as AuthCheckResponse).user?.id).toBe(probeA.user!.id);
    });

    it('a wrong password and an unknown name both answer 401 with one message, and no cookie', async () => {
      await postLocal(system.url, { username: 'Vax', password: 'vax-password', create: true });
      const wrong = await postLocal(system.url, { username: 'vax', password: 'not-the-password' });
      const unknown = await postLocal(system.url, { username: 'nobody-here', password: 'vax-password' });
      for (const res of [wrong, unknown]) {
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ detail: INVALID_CREDENTIALS_MESSAGE });
        expect(setCookie(res, 'access_token')).toBeUndefined();
      }
      expect(await passwordHash('nobody-here')).toBeUndefined();
    });

    it('stores a salted scrypt hash with its parameters, never the password', async () => {
      await postLocal(system.url, { username: 'Scanlan', password: 'scanlan-password', create: true });
      const stored = await passwordHash('scanlan');
      expect(stored).toMatch(/^\$scrypt\$ln=\d+,r=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
      expect(stored).not.toContain('scanlan-password');
    });

    it('create on a taken name signs in with its password and answers 409 with another', async () => {
      const first = await postLocal(system.url, {
        username: 'Percy',
        password: 'percy-password',
        create: true,
      });
      const id = ((await first.json()) as AuthCheckResponse).user!.id;
      const again = await postLocal(system.url, {
        username: 'PERCY',
        password: 'percy-password',
        create: true,
      });
      expect(again.status).toBe(200);
      expect(((await again.json()) as AuthCheckResponse).user!.id).toBe(id);
      const taken = await postLocal(system.url, {
        username: 'percy',
        password: 'other-password',
        create: true,
      });
      expect(taken.status).toBe(409);
      expect(await taken.json()).toEqual({
        detail: 'That username is taken. Sign in with its password, or choose another name.',
      });
      expect(setCookie(taken, 'access_token')).toBeUndefined();
    });

    it('refuses a password shorter than 8 or longer than 256 characters with 400, creating nothing', async () => {
      const short = await postLocal(system.url, { username: 'Shorty', password: '1234567', create: true });
      expect(short.status).toBe(400);
      expect(await short.json()).toEqual({ detail: 'Password must be at least 8 characters.' });
      const long = await postLocal(system.url, {
        username: 'Longy',
        password: 'x'.repeat(257),
        create: true,
      });
      expect(long.status).toBe(400);
      expect(await passwordHash('shorty')).toBeUndefined();
      expect(await passwordHash('longy')).toBeUndefined();
    });

    it('a password-less account made before passwords takes the first password given, then only that one', async () => {
      const [legacy] = await platform.db.query<{ id: string }>(
        `insert into auth.users (local_name, username) values ('legacy-lena', 'Legacy-Lena') returning id`,
      );
      expect(await passwordHash('legacy-lena')).toBeNull();

      const claimed = await postLocal(system.url, {
        username: 'Legacy-Lena',
        password: 'lena-first-password',
      });
      expect(claimed.status).toBe(200);
      expect(((await claimed.json()) as AuthCheckResponse).user!.id).toBe(legacy!.id);
      expect(await passwordHash('legacy-lena')).toMatch(/^\$scrypt\$/);

      const other = await postLocal(system.url, { username: 'legacy-lena', password: 'someone-elses-guess' });
      expect(other.status).toBe(401);
      const again = await postLocal(system.url, { username: 'legacy-lena', password: 'lena-first-password' });
      expect(again.status).toBe(200);
    });

    it('limits failed sign-ins per account: past 3 failures 429 with Retry-After, even with the right password; other accounts unaffected', async () => {
      await postLocal(system.url, { username: 'Grog', password: 'grog-password', create: true });
      await postLocal(system.url, { username: 'Pike', password: 'pike-password', create: true });
      for (let i = 0; i < 3; i++) {
        const res = await postLocal(system.url, { username: 'grog', password: `wrong-guess-${i}` });
        expect(res.status).toBe(401);
      }
      for (const password of ['wrong-guess-4', 'grog-password']) {
        const res = await postLocal(system.url, { username: 'GROG', password });
        expect(res.status).toBe(429);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await res.json()).toEqual({
          detail: 'Too many failed sign-ins for this account. Please try again later.',
        });
        expect(setCookie(res, 'access_token')).toBeUndefined();
      }
      expect((await postLocal(system.url, { username: 'pike', password: 'pike-password' })).status).toBe(200);
    });
  });

  describe('defect 2: socket handshakes check Origin', () => {
    let victim: { token: string };
    let transcript: TranscriptListItem;
    const otherOrigin = async () => `http://127.0.0.1:${await freePort()}`;

    beforeAll(async () => {
      victim = { token: (await localSignIn(system.url, 'socket-victim')).cookie };
      const res = await apiCall<TranscriptListItem>(system.url, 'POST', '/transcripts/manual', victim.token, {
        name: 'The Sunken Tomb',
        session_date: '2015-03-12T00:00:00.000Z',
        transcript: 'Vex: Is the tavern quiet?',
      });
      expect(res.status).toBe(200);
      transcript = res.body;
    });

    /** Opens the socket: its first frame's type, or the handshake's HTTP status. */
    const handshake = (
      path: string,
      query: Record<string, string>,
      headers: Record<string, string>,
    ): Promise<{ status: number } | { frame: string }> =>
      new Promise((resolve, reject) => {
        const url = `${system.url.replace(/^http/, 'ws')}/api${path}?${new URLSearchParams(query).toString()}`;
        const socket = new WebSocket(url, { headers });
        socket.on('unexpected-response', (_req, res) => {
          resolve({ status: res.statusCode ?? 0 });
          socket.terminate();
        });
        socket.on('message', (data) => {
          resolve({ frame: (JSON.parse(String(data)) as { type: string }).type });
          socket.close(1000);
        });
        socket.on('error', reject);
      });

    it('refuses a page on another port of this host that has only the cookie (403), and accepts our own origin', async () => {
      const cookie = { cookie: `access_token=${victim.token}` };
      const chat = { transcript_id: transcript.id };
      expect(await handshake('/ws/chat', chat, { ...cookie, origin: await otherOrigin() })).toEqual({
        status: 403,
      });
      expect(await handshake('/ws/chat', chat, { ...cookie, origin: 'null' })).toEqual({ status: 403 });
      expect(
        await handshake(
          '/ws/planning',
          { group_id: randomUUID() },
          { ...cookie, origin: await otherOrigin() },
        ),
      ).toEqual({
        status: 403,
      });
      // A foreign origin is refused even with a token: the page is not ours.
      expect(
        await handshake('/ws/chat', { ...chat, token: victim.token }, { origin: 'https://evil.example' }),
      ).toEqual({ status: 403 });
      expect(await handshake('/ws/chat', chat, { ...cookie, origin: system.url })).toEqual({
        frame: 'chat_history',
      });
    });

    it('a handshake without Origin (no browser) needs a header token or a ticket: the cookie alone, or a token in the URL, answers 401', async () => {
      const chat = { transcript_id: transcript.id };
      expect(await handshake('/ws/chat', chat, { cookie: `access_token=${victim.token}` })).toEqual({
        status: 401,
      });
      expect(await handshake('/ws/chat', { ...chat, token: victim.token }, {})).toEqual({ status: 401 });
      expect(await handshake('/ws/chat', chat, { authorization: `Bearer ${victim.token}` })).toEqual({
        frame: 'chat_history',
      });
      const ticket = await apiCall<{ ticket: string }>(
        system.url,
        'POST',
        '/auth/socket-ticket',
        victim.token,
      );
      expect(ticket.status).toBe(200);
      expect(await handshake('/ws/chat', { ...chat, ticket: ticket.body.ticket }, {})).toEqual({
        frame: 'chat_history',
      });
      // One socket per ticket.
      expect(await handshake('/ws/chat', { ...chat, ticket: ticket.body.ticket }, {})).toEqual({
        status: 401,
      });
    });
  });

  describe('defect 4: tokens honour their lifetime', () => {
    const expiredTokenOf = async (token: string, userId: string) =>
      new SignJWT({ sid: sessionIdOf(token) })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(userId)
        .setIssuer('chronicler')
        .setAudience('chronicler-web')
        .setJti(randomUUID())
        .setIssuedAt(Math.floor(Date.now() / 1000) - 120)
        .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
        .sign(new TextEncoder().encode(SECRET));

    it('an expired token answers 401 wherever it is presented: Bearer, auth-token and the cookie alike', async () => {
      const { body, cookie } = await localSignIn(system.url, 'token-keeper');
      const expired = await expiredTokenOf(cookie, body.user!.id);

      const ways: Record<string, string>[] = [
        { authorization: `Bearer ${expired}` },
        { 'auth-token': expired },
        { cookie: `access_token=${expired}` },
      ];
      for (const headers of ways) {
        const res = await fetch(`${system.url}/api/transcripts`, { headers });
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({ detail: 'Authentication required' });
        const me = await fetch(`${system.url}/api/auth/user`, { headers });
        expect(await me.json()).toEqual({ authenticated: false });
        // Nothing renewed: no new token in a cookie.
        expect(setCookie(me, 'access_token')).toBeUndefined();
      }
      // The session itself lives on: its own token still works.
      expect((await apiCall(system.url, 'GET', '/transcripts', cookie)).status).toBe(200);
    });

    it('a socket handshake tries each token: a live cookie signs in beside an expired header token; alone the expired one answers 401', async () => {
      const { body, cookie } = await localSignIn(system.url, 'socket-keeper');
      const expired = await expiredTokenOf(cookie, body.user!.id);
      const res = await apiCall<TranscriptListItem>(system.url, 'POST', '/transcripts/manual', cookie, {
        name: 'Whitestone',
        session_date: '2015-03-12T00:00:00.000Z',
        transcript: 'Percy: We go at dawn.',
      });
      const url = `${system.url.replace(/^http/, 'ws')}/api/ws/chat?${new URLSearchParams({ transcript_id: res.body.id }).toString()}`;
      const open = (headers: Record<string, string>) =>
        new Promise<number | 'open'>((resolve, reject) => {
          const socket = new WebSocket(url, { headers });
          socket.on('unexpected-response', (_req, r) => {
            resolve(r.statusCode ?? 0);
            socket.terminate();
          });
          socket.on('open', () => {
            resolve('open');
            socket.close(1000);
          });
          socket.on('error', reject);
        });
      expect(await open({ authorization: `Bearer ${expired}` })).toBe(401);
      expect(await open({ origin: system.url, cookie: `access_token=${expired}` })).toBe(401);
      expect(
        await open({
          authorization: `Bearer ${expired}`,
          origin: system.url,
          cookie: `access_token=${cookie}`,
        }),
      ).toBe('open');
    });
  });

  describe('defect 8: logout refuses a foreign origin', () => {
    it('GET /api/auth/logout with a foreign Origin or Sec-Fetch-Site cross-site answers 403 and the session lives on', async () => {
      const { cookie } = await localSignIn(system.url, 'logout-victim');
      const foreign: Record<string, string>[] = [
        { origin: 'http://127.0.0.1:1' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
      ];
      for (const headers of foreign) {
        const res = await fetch(`${system.url}/api/auth/logout`, {
          headers: { cookie: `access_token=${cookie}`, ...headers },
        });
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual({ detail: 'Cross-origin request refused' });
        expect(setCookie(res, 'access_token')).toBeUndefined();
      }
      expect((await authUser(system.url, { authorization: `Bearer ${cookie}` })).authenticated).toBe(true);
      const rows = await platform.db.query<{ revoked_at: Date | null }>(
        `select revoked_at from auth.sessions where id = $1`,
        [sessionIdOf(cookie)],
      );
      expect(rows[0]!.revoked_at).toBeNull();

      const own = await fetch(`${system.url}/api/auth/logout`, {
        headers: { cookie: `access_token=${cookie}`, origin: system.url, 'sec-fetch-site': 'same-origin' },
      });
      expect(own.status).toBe(200);
      // The sessions the browser kept to revalidate go with the sign-out.
      expect(own.headers.get('clear-site-data')).toBe('"cache"');
      expect(await authUser(system.url, { authorization: `Bearer ${cookie}` })).toEqual({
        authenticated: false,
      });
    });
  });
});

describe(`defect 9: the Host header does not decide where OAuth sign-in redirects (${testMode} mode)`, () => {
  let peer: OAuthPeer;
  let system: TestSystem;
  let withPublicUrl: FastifyInstance;
  let port: string;

  beforeAll(async () => {
    peer = await startOAuthPeer();
    system = await startSystem({
      env: { ...peer.env('discord'), RATE_LIMIT_SIGN_IN_MAX: '1000', ALLOWED_HOSTS: 'chronicler.lan' },
    });
    port = new URL(system.url).port;
    const platform = system.platform!;
    withPublicUrl = await buildApp({
      name: 'gateway',
      version: '0.0.0-test',
      instance: 'public-url-replica',
      config: loadConfig(GatewayConfigSchema, {
        ...system.env,
        PORT: '0',
        PUBLIC_URL: 'https://chronicler.example',
      }),
      bus: platform.bus,
      db: platform.db,
      schema: 'gateway',
      coord: platform.coord,
      logger: createLogger('gateway-public-url', { level: 'warn' }),
      platform,
    });
    await withPublicUrl.ready();
  });
  afterAll(async () => {
    await withPublicUrl?.close();
    await system?.stop();
    await peer?.close();
  });

  const evil = { host: 'evil.example' };

  it.runIf(testMode === 'embedded')(
    'embedded without PUBLIC_URL: Host evil.example gets 400 "Invalid Host header" on the login and callback routes, never a redirect there',
    async () => {
      for (const path of ['/api/auth/discord/login', '/api/auth/discord/callback?code=x&state=y']) {
        const res = await rawGet(`${system.url}${path}`, evil);
        expect(res.status).toBe(400);
        expect(JSON.parse(res.body)).toEqual({ detail: 'Invalid Host header' });
        expect(res.location).toBeUndefined();
      }
      expect(
        (await rawGet(`${system.url}/api/auth/discord/login`, { host: `evil.example:${port}` })).status,
      ).toBe(400);
      expect((await rawGet(`${system.url}/api/auth/discord/login`, { host: 'localhost:1' })).status).toBe(
        400,
      );
    },
  );

  it.runIf(testMode === 'embedded')(
    'embedded without PUBLIC_URL: localhost, 127.0.0.1 and [::1] on our port, and ALLOWED_HOSTS, are accepted',
    async () => {
      for (const host of [
        `localhost:${port}`,
        `127.0.0.1:${port}`,
        `[::1]:${port}`,
        `chronicler.lan:${port}`,
        'CHRONICLER.LAN',
      ]) {
        const res = await rawGet(`${system.url}/api/auth/discord/login`, { host });
        expect(res.status, host).toBe(200);
        const login = new URL((JSON.parse(res.body) as { login_url: string }).login_url);
        expect(login.searchParams.get('redirect_uri')).toBe(`http://${host}/api/auth/discord/callback`);
      }
      const callback = await rawGet(`${system.url}/api/auth/discord/callback?code=x&state=unknown`, {
        host: `chronicler.lan:${port}`,
      });
      expect(callback.status).toBe(302);
      expect(callback.location).toBe(`http://chronicler.lan:${port}/login?error=invalid_state`);
    },
  );

  it.runIf(testMode === 'cluster')(
    'cluster without PUBLIC_URL: the login and callback routes answer 500 naming PUBLIC_URL, whatever the Host, and redirect nowhere',
    async () => {
      for (const headers of [evil, { host: `127.0.0.1:${port}` }]) {
        for (const path of ['/api/auth/discord/login', '/api/auth/discord/callback?code=x&state=y']) {
          const res = await rawGet(`${system.url}${path}`, headers);
          expect(res.status).toBe(500);
          expect(JSON.parse(res.body)).toEqual({
            detail: 'Sign-in with Discord or Google needs PUBLIC_URL in cluster mode.',
          });
          expect(res.location).toBeUndefined();
        }
      }
    },
  );

  it('with PUBLIC_URL, Host evil.example changes nothing: the redirect URI and the callback redirect use PUBLIC_URL', async () => {
    const login = await withPublicUrl.inject({
      method: 'GET',
      url: '/api/auth/discord/login',
      headers: evil,
    });
    expect(login.statusCode).toBe(200);
    const loginUrl = new URL(login.json<{ login_url: string }>().login_url);
    expect(loginUrl.searchParams.get('redirect_uri')).toBe(
      'https://chronicler.example/api/auth/discord/callback',
    );
    const callback = await withPublicUrl.inject({
      method: 'GET',
      url: '/api/auth/discord/callback?code=x&state=unknown',
      headers: evil,
    });
    expect(callback.statusCode).toBe(302);
    expect(callback.headers.location).toBe('https://chronicler.example/login?error=invalid_state');
  });
});

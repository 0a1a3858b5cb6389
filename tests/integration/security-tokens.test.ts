import type { AuthCheckResponse, TranscriptListItem } from '@chronicler/contracts';
import { SignJWT } from 'jose';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { apiCall } from '../support/api.ts';
import { localPassword, sessionIdOf, setCookie } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

const SECRET = randomBytes(32).toString('base64url');

interface Session {
  user: string;
  token: string;
  refresh: string;
}

describe(`access tokens expire; a refresh credential renews them (${testMode} mode)`, () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await startSystem({
      env: { AUTH_JWT_SECRET: SECRET, AUTH_LOCAL_ENABLED: 'true', RATE_LIMIT_SIGN_IN_MAX: '1000' },
    });
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  async function signIn(username: string): Promise<Session & { res: Response; body: AuthCheckResponse }> {
    const res = await fetch(`${system.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: localPassword(username), create: true }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as AuthCheckResponse;
    return {
      res,
      body,
      user: body.user!.id,
      token: setCookie(res, 'access_token')!.value,
      refresh: setCookie(res, 'refresh_token')!.value,
    };
  }

  const refresh = (credential: string | null, headers: Record<string, string> = {}) =>
    fetch(`${system.url}/api/auth/refresh`, {
      method: 'POST',
      headers: { ...(credential ? { cookie: `refresh_token=${credential}` } : {}), ...headers },
    });

  const expiredTokenOf = (token: string, userId: string) =>
    new SignJWT({ sid: sessionIdOf(token) })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuer('chronicler')
      .setAudience('chronicler-web')
      .setJti(randomUUID())
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(new TextEncoder().encode(SECRET));

  it('an expired access token sent as the cookie answers 401, and nothing renews it', async () => {
    const s = await signIn('cookie-holder');
    const expired = await expiredTokenOf(s.token, s.user);
    const res = await fetch(`${system.url}/api/transcripts`, {
      headers: { cookie: `access_token=${expired}` },
    });
    expect(res.status).toBe(401);
    expect(setCookie(res, 'access_token')).toBeUndefined();
    const me = await fetch(`${system.url}/api/auth/user`, { headers: { cookie: `access_token=${expired}` } });
    expect(await me.json()).toEqual({ authenticated: false });
    expect(setCookie(me, 'access_token')).toBeUndefined();
  });

  it('sign-in sets a refresh credential apart from the access token: httpOnly, SameSite Strict, sent only to the refresh route', async () => {
    const s = await signIn('cookie-reader');
    expect(s.refresh).not.toBe(s.token);
    expect(s.refresh.split('.')).toHaveLength(1);
    const attributes = setCookie(s.res, 'refresh_token')!.attributes;
    expect(attributes).toMatch(/HttpOnly/i);
    expect(attributes).toMatch(/SameSite=Strict/i);
    expect(attributes).toMatch(/Path=\/api\/auth\/refresh(;|$)/i);
    // The page sees the access token only.
    expect(JSON.stringify(s.body)).not.toContain(s.refresh);
    // The refresh credential is no access token.
    expect((await apiCall(system.url, 'GET', '/transcripts', s.refresh)).status).toBe(401);
  });

  it('a refresh answers a new access token and rotates the credential; the old credential used again revokes the session', async () => {
    const s = await signIn('rotator');
    const first = await refresh(s.refresh);
    expect(first.status).toBe(200);
    const body = (await first.json()) as AuthCheckResponse;
    expect(body).toMatchObject({ authenticated: true, user: { id: s.user } });
    expect(sessionIdOf(body.token!)).toBe(sessionIdOf(s.token));
    expect(setCookie(first, 'access_token')!.value).toBe(body.token);
    const next = setCookie(first, 'refresh_token')!.value;
    expect(next).not.toBe(s.refresh);
    expect((await apiCall(system.url, 'GET', '/transcripts', body.token)).status).toBe(200);

    // The newest credential works once more, and rotates again.
    const second = await refresh(next);
    expect(second.status).toBe(200);
    const newest = setCookie(second, 'refresh_token')!.value;
    const newestToken = ((await second.json()) as AuthCheckResponse).token!;

    // Someone presents the first credential again: a copy exists, so the session ends for all.
    const replay = await refresh(s.refresh);
    expect(replay.status).toBe(401);
    expect(await replay.json()).toEqual({ detail: 'Authentication required' });
    expect((await apiCall(system.url, 'GET', '/transcripts', newestToken)).status).toBe(401);
    expect((await refresh(newest)).status).toBe(401);
  });

  it('logout revokes the refresh credential and clears its cookie', async () => {
    const s = await signIn('leaver');
    const out = await fetch(`${system.url}/api/auth/logout`, {
      headers: { authorization: `Bearer ${s.token}` },
    });
    expect(out.status).toBe(200);
    const cleared = setCookie(out, 'refresh_token');
    expect(cleared?.value).toBe('');
    expect(cleared?.attributes).toMatch(/Path=\/api\/auth\/refresh(;|$)/i);
    expect((await refresh(s.refresh)).status).toBe(401);
  });

  it('a refresh without a credential, with a made-up one, or from a foreign page is refused', async () => {
    expect((await refresh(null)).status).toBe(401);
    expect((await refresh('made-up-credential')).status).toBe(401);
    const s = await signIn('csrf-target');
    const foreign = await refresh(s.refresh, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    // Refused before it was used: the owner's credential still works.
    expect((await refresh(s.refresh)).status).toBe(200);
  });

  it('a browser socket opens with a one-time ticket, never a token in the URL', async () => {
    const s = await signIn('socket-user');
    const created = await apiCall<TranscriptListItem>(system.url, 'POST', '/transcripts/manual', s.token, {
      name: 'Emon',
      session_date: '2015-03-12T00:00:00.000Z',
      transcript: 'Vax: Quietly now.',
    });
    const open = (query: Record<string, string>) =>
      new Promise<number | 'open'>((resolve, reject) => {
        const socket = new WebSocket(
          `${system.url.replace(/^http/, 'ws')}/api/ws/chat?${new URLSearchParams({ transcript_id: created.body.id, ...query }).toString()}`,
          { headers: { origin: system.url } },
        );
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
    // A valid token in the URL counts as none.
    expect(await open({ token: s.token })).toBe(401);
    expect((await apiCall(system.url, 'POST', '/auth/socket-ticket', undefined)).status).toBe(401);
    const ticket = await apiCall<{ ticket: string; expires_in: number }>(
      system.url,
      'POST',
      '/auth/socket-ticket',
      s.token,
    );
    expect(ticket.status).toBe(200);
    expect(ticket.body.ticket).not.toContain(s.token);
    expect(await open({ ticket: ticket.body.ticket })).toBe('open');
    expect(await open({ ticket: ticket.body.ticket })).toBe(401);
    // The specification's `token` parameter carries such a code too, once.
    const second = await apiCall<{ ticket: string }>(system.url, 'POST', '/auth/socket-ticket', s.token);
    expect(await open({ token: second.body.ticket })).toBe('open');
    expect(await open({ token: second.body.ticket })).toBe(401);
  });
});

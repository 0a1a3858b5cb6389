import type { AuthCheckResponse, AuthProviders } from '@chronicler/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthPeer, type OAuthPeer } from '../peers/oauth.ts';
import { setCookie } from '../support/auth.ts';
import { freePort, startSystem, testMode, type TestSystem } from '../support/system.ts';

describe(`sign-in with Discord and Google against the OAuth peer (${testMode} mode)`, () => {
  let peer: OAuthPeer;
  let system: TestSystem;
  beforeAll(async () => {
    peer = await startOAuthPeer();
    // OAuth needs PUBLIC_URL in cluster mode (the Host header must not pick the redirect), so
    // the test picks the port and names the address before the start.
    const port = await freePort();
    system = await startSystem({
      env: {
        ...peer.env('both'),
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        ADMIN_DISCORD_IDS: '1000000000000000001',
        ADMIN_EMAILS: 'Boss@Example.com',
        OAUTH_HTTP_TIMEOUT_MS: '1000',
        // Every test here signs in several times from one address.
        RATE_LIMIT_SIGN_IN_MAX: '1000',
      },
    });
  });
  afterAll(async () => {
    await system?.stop();
    await peer?.close();
  });
  afterEach(() => {
    peer.consent = 'allow';
    peer.failure = null;
    peer.discordUser = { ...peer.discordUser, id: '80351110224678912' };
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(path.startsWith('http') ? path : `${system.url}${path}`, { redirect: 'manual', headers });

  /** Login URL → peer's authorize → our callback; answers the callback's response. */
  async function discordFlow(): Promise<{ callback: Response; callbackUrl: string }> {
    const { login_url } = (await (await get('/api/auth/discord/login')).json()) as { login_url: string };
    const consent = await get(login_url);
    expect(consent.status).toBe(302);
    const callbackUrl = consent.headers.get('location')!;
    return { callback: await get(callbackUrl), callbackUrl };
  }

  const loginError = (res: Response) => {
    expect(res.status).toBe(302);
    const loc = new URL(res.headers.get('location')!);
    expect(loc.pathname).toBe('/login');
    expect(setCookie(res, 'access_token')).toBeUndefined();
    return loc.searchParams.get('error');
  };

  it('offers Discord and Google, and no local account next to them', async () => {
    const providers = (await (await get('/api/auth/providers')).json()) as AuthProviders;
    expect(providers).toEqual({
      discord: true,
      google: true,
      google_client_id: peer.google.clientId,
      local: false,
      first_account: false,
    });
    const local = await fetch(`${system.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'mallory', password: 'mallory-password', create: true }),
    });
    expect(local.status).toBe(403);
  });

  it('Discord login URL carries client id, our callback, state and an S256 PKCE challenge', async () => {
    const res = await get('/api/auth/discord/login');
    expect(res.status).toBe(200);
    const url = new URL(((await res.json()) as { login_url: string }).login_url);
    expect(`${url.origin}${url.pathname}`).toBe(peer.discordAuthorizeUrl);
    expect(url.searchParams.get('client_id')).toBe(peer.discord.clientId);
    expect(url.searchParams.get('redirect_uri')).toBe(`${system.url}/api/auth/discord/callback`);
    expect(url.searchParams.get('state')!.length).toBeGreaterThanOrEqual(32);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('Discord success: sets the access and refresh cookies, redirects to /auth/callback with no token in the URL, and the user is signed in', async () => {
    const { callback } = await discordFlow();
    expect(callback.status).toBe(302);
    const loc = new URL(callback.headers.get('location')!);
    expect(loc.pathname).toBe('/auth/callback');
    expect(loc.search).toBe('');
    const cookie = setCookie(callback, 'access_token')!;
    const token = cookie.value;
    expect(cookie.attributes).toMatch(/HttpOnly/i);
    expect(cookie.attributes).toMatch(/SameSite=Lax/i);
    // The access cookie lives as long as its token (AUTH_TOKEN_TTL), the refresh one as the session.
    const maxAge = Number(/Max-Age=(\d+)/i.exec(cookie.attributes)?.[1]);
    expect(maxAge).toBeGreaterThan(15 * 60 - 60);
    expect(maxAge).toBeLessThanOrEqual(15 * 60);
    const refresh = setCookie(callback, 'refresh_token')!;
    expect(refresh.value).not.toBe(token);
    expect(refresh.attributes).toMatch(/HttpOnly/i);
    expect(refresh.attributes).toMatch(/Path=\/api\/auth\/refresh/i);
    expect(Number(/Max-Age=(\d+)/i.exec(refresh.attributes)?.[1])).toBeGreaterThan(7 * 86400 - 60);
    const me = (await (
      await get('/api/auth/user', { cookie: `access_token=${token}` })
    ).json()) as AuthCheckResponse;
    expect(me.authenticated).toBe(true);
    expect(me.user).toMatchObject({
      username: 'Nelly',
      discord_id: peer.discordUser.id,
      avatar: peer.discordUser.avatar,
      is_admin: false,
    });
    // The token exchange used the PKCE verifier and the exact redirect URI of the login URL.
    const exchange = peer.tokenRequests.at(-1)!;
    expect(exchange.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(exchange.redirect_uri).toBe(`${system.url}/api/auth/discord/callback`);
  });

  it('a Discord id listed in ADMIN_DISCORD_IDS signs in as admin', async () => {
    peer.discordUser = { ...peer.discordUser, id: '1000000000000000001' };
    const { callback } = await discordFlow();
    const token = setCookie(callback, 'access_token')!.value;
    const me = (await (
      await get('/api/auth/user', { authorization: `Bearer ${token}` })
    ).json()) as AuthCheckResponse;
    expect(me.user?.is_admin).toBe(true);
  });

  it('denied consent lands on /login?error=access_denied', async () => {
    peer.consent = 'deny';
    const { callback } = await discordFlow();
    expect(loginError(callback)).toBe('access_denied');
  });

  it('a state we did not issue, and a state used twice, are refused', async () => {
    const { login_url } = (await (await get('/api/auth/discord/login')).json()) as { login_url: string };
    const callbackUrl = new URL((await get(login_url)).headers.get('location')!);
    const forged = new URL(callbackUrl);
    forged.searchParams.set('state', 'not-a-state-we-issued');
    expect(loginError(await get(forged.toString()))).toBe('invalid_state');
    const missing = new URL(callbackUrl);
    missing.searchParams.delete('state');
    expect(loginError(await get(missing.toString()))).toBe('invalid_state');

    const first = await get(callbackUrl.toString());
    expect(new URL(first.headers.get('location')!).pathname).toBe('/auth/callback');
    expect(loginError(await get(callbackUrl.toString()))).toBe('invalid_state');
  });

  it('a replayed authorization code is refused by the provider (invalid_grant)', async () => {
    const { callbackUrl } = await discordFlow();
    const usedCode = new URL(callbackUrl).searchParams.get('code')!;
    // A fresh state of ours, with the code that was already exchanged.
    const { login_url } = (await (await get('/api/auth/discord/login')).json()) as { login_url: string };
    const state = new URL(login_url).searchParams.get('state')!;
    const replay = await get(
      `/api/auth/discord/callback?code=${usedCode}&state=${encodeURIComponent(state)}`,
    );
    expect(loginError(replay)).toBe('invalid_grant');
  });

  it('provider 5xx, 429 and a provider slower than the timeout give provider_unavailable', async () => {
    peer.failure = { status: 502 };
    expect(loginError((await discordFlow()).callback)).toBe('provider_unavailable');
    peer.failure = { status: 429 };
    expect(loginError((await discordFlow()).callback)).toBe('provider_unavailable');
    peer.failure = { delayMs: 2500 };
    expect(loginError((await discordFlow()).callback)).toBe('provider_unavailable');
  });

  const credential = (credential: string) =>
    fetch(`${system.url}/api/auth/google/credential`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ credential }),
    });

  it('a valid Google ID token signs in, with the profile picture and admin rights from ADMIN_EMAILS', async () => {
    const res = await credential(
      await peer.mintIdToken({ sub: 'g-1', email: 'boss@example.com', name: 'The Boss' }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as AuthCheckResponse;
    expect(body).toMatchObject({
      authenticated: true,
      user: {
        username: 'The Boss',
        discord_id: null,
        avatar: 'https://lh3.googleusercontent.com/a/test-avatar',
        is_admin: true,
      },
    });
    expect(setCookie(res, 'access_token')?.value).toBe(body.token);
    const me = (await (
      await get('/api/auth/user', { 'auth-token': body.token! })
    ).json()) as AuthCheckResponse;
    expect(me.user?.id).toBe(body.user?.id);
  });

  it('an unverified email does not grant admin rights', async () => {
    const res = await credential(
      await peer.mintIdToken({ sub: 'g-2', email: 'boss@example.com', emailVerified: false }),
    );
    expect(((await res.json()) as AuthCheckResponse).user?.is_admin).toBe(false);
  });

  it.each([
    ['another audience', { aud: 'someone-else.apps.googleusercontent.com' }],
    ['an expired token', { expiresIn: -120 }],
    ['a token signed by a key Google never published', { foreignKey: true }],
    ['a foreign issuer', { iss: 'https://evil.example' }],
  ])('refuses a Google ID token with %s (401)', async (_what, opts) => {
    const res = await credential(await peer.mintIdToken(opts));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: 'Invalid Google credential' });
    expect(setCookie(res, 'access_token')).toBeUndefined();
  });

  it('Google redirect flow: login URL → consent → callback signs in', async () => {
    const { login_url } = (await (await get('/api/auth/google/login')).json()) as { login_url: string };
    expect(new URL(login_url).searchParams.get('code_challenge_method')).toBe('S256');
    const consent = await get(login_url);
    const callback = await get(consent.headers.get('location')!);
    expect(callback.status).toBe(302);
    expect(new URL(callback.headers.get('location')!).search).toBe('');
    const token = setCookie(callback, 'access_token')!.value;
    const me = (await (
      await get('/api/auth/user', { cookie: `access_token=${token}` })
    ).json()) as AuthCheckResponse;
    expect(me).toMatchObject({ authenticated: true, user: { username: 'Game Master' } });
  });
});

import { MemoryCoordination } from '@chronicler/kit';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayContext } from '../app.ts';
import type {} from './auth.ts';
import errors from './errors.ts';
import rateLimit from './rate-limit.ts';

const LIMITS = { ip: 4, signIn: 2, user: 3, share: 2 };

/** Signs in whoever the x-user header names, as the real auth plugin does from a token. */
const headerAuth = fp(
  async (app) => {
    app.decorateRequest('user', null);
    // x-cached: the user's token check is cached, so identifying them costs no round trip.
    app.decorate('sessionKnown', (req) => req.headers['x-cached'] === '1');
    app.addHook('onRequest', async (req, reply) => {
      const id = req.headers['x-user'];
      if (typeof id === 'string') {
        req.user = { id, username: id, avatar: null, discord_id: null, is_admin: false };
      }
      // Like the real guard refusing a non-admin: answered before any route work.
      if (req.url === '/api/admin/x') return reply.code(403).send({ detail: 'Admin access required' });
    });
  },
  { name: 'auth' },
);

let app: FastifyInstance;
let coord: MemoryCoordination;
let handled: number;
/** The keys of each call to the rate limiter, in order. */
let calls: string[][];

beforeEach(async () => {
  coord = new MemoryCoordination();
  handled = 0;
  calls = [];
  const hitAll = coord.rateLimiter.hitAll.bind(coord.rateLimiter);
  coord.rateLimiter.hitAll = async (hits) => {
    calls.push(hits.map((h) => h.key));
    return hitAll(hits);
  };
  app = Fastify();
  app.decorate('ctx', {
    coord,
    config: {
      RATE_LIMIT_WINDOW_MS: 60_000,
      RATE_LIMIT_IP_MAX: LIMITS.ip,
      RATE_LIMIT_SIGN_IN_MAX: LIMITS.signIn,
      RATE_LIMIT_USER_MAX: LIMITS.user,
      RATE_LIMIT_SHARE_MAX: LIMITS.share,
    },
  } as unknown as GatewayContext);
  await app.register(errors);
  await app.register(headerAuth);
  await app.register(rateLimit);
  const ok = async () => {
    handled += 1;
    return { ok: true };
  };
  app.get('/api/things', ok);
  app.get('/api/admin/x', ok);
  app.post('/api/auth/local', { config: { signIn: true } }, ok);
  app.get('/api/shared/:token', { config: { shareLink: true } }, ok);
  app.get('/assets/app.js', ok);
  await app.ready();
});
afterEach(async () => {
  await app.close();
  await coord.close();
});

const get = (url: string, headers: Record<string, string> = {}, remoteAddress = '10.0.0.1') =>
  app.inject({ method: 'GET', url, headers, remoteAddress });

describe('rate limits on /api', () => {
  it('answers 429 with Retry-After once an address passes its limit, without running the route', async () => {
    for (let i = 0; i < LIMITS.ip; i++) expect((await get('/api/things')).statusCode).toBe(200);
    const refused = await get('/api/things');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ detail: 'Too many requests. Please try again later.' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(handled).toBe(LIMITS.ip);
    // Another address has its own count.
    expect((await get('/api/things', {}, '10.0.0.2')).statusCode).toBe(200);
  });

  it('holds sign-in endpoints to their stricter limit', async () => {
    const signIn = () =>
      app.inject({ method: 'POST', url: '/api/auth/local', payload: {}, remoteAddress: '10.0.0.3' });
    for (let i = 0; i < LIMITS.signIn; i++) expect((await signIn()).statusCode).toBe(200);
    expect((await signIn()).statusCode).toBe(429);
    // The same address may still use the rest of the API.
    expect((await get('/api/things', {}, '10.0.0.3')).statusCode).toBe(200);
  });

  it("holds a shared link's reads to their own limit per address and link, apart from sign-in", async () => {
    const open = (token: string) => get(`/api/shared/${token}`, {}, '10.0.0.4');
    for (let i = 0; i < LIMITS.share; i++) expect((await open('the-link')).statusCode).toBe(200);
    expect((await open('the-link')).statusCode).toBe(429);
    const signIn = await app.inject({
      method: 'POST',
      url: '/api/auth/local',
      payload: {},
      remoteAddress: '10.0.0.4',
    });
    expect(signIn.statusCode).toBe(200);
    // Another link from the same address: its own count.
    expect((await open('another-link')).statusCode).toBe(200);
    // The token itself is never a key: only its hash.
    expect(calls.flat().some((k) => k.includes('the-link'))).toBe(false);
  });

  it('wrong tokens from one address, more than a link may be read, never hold back a link that works', async () => {
    const open = (token: string) => get(`/api/shared/${token}`, {}, '10.0.0.5');
    for (let i = 0; i < LIMITS.share + 1; i++) expect((await open(`guess-${i}`)).statusCode).toBe(200);
    expect((await open('the-link')).statusCode).toBe(200);
    // The address limit still bounds them all.
    expect((await open('guess-more')).statusCode).toBe(429);
  });

  it('counts a signed-in user across addresses', async () => {
    const addresses = ['10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.4'];
    const codes = [];
    for (const address of addresses)
      codes.push((await get('/api/things', { 'x-user': 'u1' }, address)).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    expect((await get('/api/things', { 'x-user': 'u2' }, '10.1.0.4')).statusCode).toBe(200);
  });

  it('never limits what is outside /api', async () => {
    for (let i = 0; i < LIMITS.ip + 2; i++) expect((await get('/assets/app.js')).statusCode).toBe(200);
  });

  it('checks the address and user limits of a request with a cached session in one call', async () => {
    const res = await get('/api/things', { 'x-user': 'u3', 'x-cached': '1' }, '10.2.0.1');
    expect(res.statusCode).toBe(200);
    expect(calls).toEqual([['rl:ip:10.2.0.1', 'rl:user:u3']]);
  });

  it('holds a request whose session is not cached to its address limit before identifying it', async () => {
    expect((await get('/api/things', { 'x-user': 'u4' }, '10.2.0.2')).statusCode).toBe(200);
    expect(calls).toEqual([['rl:ip:10.2.0.2'], ['rl:user:u4']]);
    calls = [];
    // Anonymous: the address alone, once.
    expect((await get('/api/things', {}, '10.2.0.2')).statusCode).toBe(200);
    expect(calls).toEqual([['rl:ip:10.2.0.2']]);
  });

  it('charges neither limit for a request one of them refused', async () => {
    const cached = { 'x-user': 'u5', 'x-cached': '1' };
    for (let i = 0; i < LIMITS.user; i++)
      expect((await get('/api/things', cached, '10.3.0.1')).statusCode).toBe(200);
    // The user is over their limit: refused, and the address keeps the hit it did not use.
    expect((await get('/api/things', cached, '10.3.0.1')).statusCode).toBe(429);
    expect(handled).toBe(LIMITS.user);
    const left = LIMITS.ip - LIMITS.user;
    for (let i = 0; i < left; i++) expect((await get('/api/things', {}, '10.3.0.1')).statusCode).toBe(200);
    expect((await get('/api/things', {}, '10.3.0.1')).statusCode).toBe(429);
  });

  it('still counts a request with a cached session that the auth plugin answered itself', async () => {
    const cached = { 'x-user': 'u6', 'x-cached': '1' };
    for (let i = 0; i < LIMITS.ip; i++)
      expect((await get('/api/admin/x', cached, '10.4.0.1')).statusCode).toBe(403);
    expect((await get('/api/things', {}, '10.4.0.1')).statusCode).toBe(429);
  });
});

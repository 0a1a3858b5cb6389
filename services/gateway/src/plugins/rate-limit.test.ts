import { MemoryCoordination } from '@chronicler/kit';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayContext } from '../app.ts';
import type {} from './auth.ts';
import errors from './errors.ts';
import rateLimit from './rate-limit.ts';

const LIMITS = { ip: 4, signIn: 2, user: 3 };

/** Signs in whoever the x-user header names, as the real auth plugin does from a token. */
const headerAuth = fp(
  async (app) => {
    app.decorateRequest('user', null);
    app.addHook('onRequest', async (req) => {
      const id = req.headers['x-user'];
      if (typeof id === 'string') {
        req.user = { id, username: id, avatar: null, discord_id: null, is_admin: false };
      }
    });
  },
  { name: 'auth' },
);

let app: FastifyInstance;
let coord: MemoryCoordination;
let handled: number;

beforeEach(async () => {
  coord = new MemoryCoordination();
  handled = 0;
  app = Fastify();
  app.decorate('ctx', {
    coord,
    config: {
      RATE_LIMIT_WINDOW_MS: 60_000,
      RATE_LIMIT_IP_MAX: LIMITS.ip,
      RATE_LIMIT_SIGN_IN_MAX: LIMITS.signIn,
      RATE_LIMIT_USER_MAX: LIMITS.user,
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
  app.post('/api/auth/local', { config: { signIn: true } }, ok);
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
});

import { createLogger } from '@chronicler/kit';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyChildLogger } from '../lib/lazy-logger.ts';
import { RequestLogController } from './request-log.ts';

type Line = Record<string, unknown>;

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A fastify app as app.ts builds it (root logger, lazy children, the controller), with a few routes. */
async function appWith(sample: number, level = 'info'): Promise<{ app: FastifyInstance; lines: Line[] }> {
  const lines: Line[] = [];
  app = Fastify({
    loggerInstance: createLogger('gateway', {
      level,
      destination: { write: (line: string) => void lines.push(JSON.parse(line) as Line) },
    }) as FastifyBaseLogger,
    logController: new RequestLogController(sample),
    childLoggerFactory: lazyChildLogger,
  });
  app.decorateRequest('user', null);
  app.addHook('onRequest', async (req) => {
    // Stands in for plugins/auth.ts, which sets the checked user the same way.
    if (req.headers.authorization === 'Bearer good-token')
      req.user = { id: 'user-1', username: 'matt', avatar: null, discord_id: null, is_admin: false };
  });
  app.get('/api/things/:id', async () => ({ ok: true }));
  app.get('/api/broken', async () => {
    throw new Error('boom');
  });
  await app.register(websocket);
  app.get('/api/ws/echo', { websocket: true }, (socket) => {
    socket.on('message', (m) => socket.send(m));
  });
  return { app, lines };
}

const access = (lines: Line[]) => lines.filter((l) => l.msg === 'access');

describe('access log', () => {
  it('writes one info line per request with the route pattern, status, duration, ids and user, never the URL', async () => {
    const { app, lines } = await appWith(1);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await app.inject({
      method: 'GET',
      url: '/api/things/abc-123?token=secret-value&q=private-words',
      headers: { authorization: 'Bearer good-token', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });
    await app.inject({ method: 'GET', url: '/nowhere?q=private-words' });
    const out = access(lines);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({
      level: 'info',
      service: 'gateway',
      method: 'GET',
      route: '/api/things/:id',
      status: 200,
      traceId,
      userId: 'user-1',
    });
    expect(out[0]!.durationMs).toEqual(expect.any(Number));
    expect(out[0]!.reqId).toEqual(expect.any(String));
    expect(out[1]).toMatchObject({ route: 'unmatched', status: 404 });
    expect(out[1]).not.toHaveProperty('userId');
    const all = JSON.stringify(lines);
    for (const secret of ['secret-value', 'good-token', 'private-words', 'abc-123'])
      expect(all).not.toContain(secret);
  });

  it('writes the line of a failed request with its 5xx status', async () => {
    const { app, lines } = await appWith(1);
    expect((await app.inject({ url: '/api/broken' })).statusCode).toBe(500);
    expect(access(lines)).toEqual([expect.objectContaining({ route: '/api/broken', status: 500 })]);
  });

  it('keeps an even fraction of the lines with ACCESS_LOG_SAMPLE, and every 5xx', async () => {
    const { app, lines } = await appWith(0.25);
    for (let i = 0; i < 40; i++) await app.inject({ url: `/api/things/${i}` });
    for (let i = 0; i < 3; i++) await app.inject({ url: '/api/broken' });
    const out = access(lines);
    expect(out.filter((l) => l.status === 200)).toHaveLength(10);
    expect(out.filter((l) => l.status === 500)).toHaveLength(3);
  });

  it('writes no access line with ACCESS_LOG_SAMPLE=0', async () => {
    const { app, lines } = await appWith(0);
    await app.inject({ url: '/api/things/1' });
    await app.inject({ url: '/api/broken' });
    expect(access(lines)).toEqual([]);
  });

  it('writes nothing per request when the level is above info', async () => {
    const { app, lines } = await appWith(1, 'warn');
    await app.inject({ url: '/api/things/1' });
    expect(access(lines)).toEqual([]);
  });

  it('writes one line for a WebSocket upgrade', async () => {
    const { app, lines } = await appWith(1);
    await app.ready();
    const ws = await app.injectWS('/api/ws/echo?ticket=secret-ticket');
    ws.send('hello');
    await new Promise((resolve) => ws.once('message', resolve));
    ws.terminate();
    expect(access(lines)).toEqual([expect.objectContaining({ route: '/api/ws/echo', status: 101 })]);
    expect(JSON.stringify(lines)).not.toContain('secret-ticket');
  });
});

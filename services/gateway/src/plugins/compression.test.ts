import Fastify, { type FastifyInstance } from 'fastify';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import compression, { COMPRESS_THRESHOLD } from './compression.ts';

const big = Array.from({ length: 100 }, (_, i) => ({
  id: i,
  name: `Session ${i}`,
  summary: 'The party rests.',
}));

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  await app.register(compression);
  app.get('/big', async () => big);
  app.get('/small', async () => ({ ok: true }));
  app.get('/bytes', async (_req, reply) => reply.type('application/octet-stream').send(Buffer.alloc(5000)));
  await app.ready();
});
afterAll(() => app.close());

describe('response compression', () => {
  it('gzips a large JSON body for a client that accepts gzip', async () => {
    const res = await app.inject({ method: 'GET', url: '/big', headers: { 'accept-encoding': 'gzip' } });
    expect(JSON.stringify(big).length).toBeGreaterThan(COMPRESS_THRESHOLD);
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(gunzipSync(res.rawPayload).toString('utf8'))).toEqual(big);
    expect(res.rawPayload.length).toBeLessThan(JSON.stringify(big).length / 3);
  });

  it('prefers brotli when offered and sends the body as is without Accept-Encoding', async () => {
    const br = await app.inject({ method: 'GET', url: '/big', headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    const plain = await app.inject({ method: 'GET', url: '/big' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json()).toEqual(big);
  });

  it('leaves small JSON and octet streams alone', async () => {
    const small = await app.inject({ method: 'GET', url: '/small', headers: { 'accept-encoding': 'gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json()).toEqual({ ok: true });
    const bytes = await app.inject({ method: 'GET', url: '/bytes', headers: { 'accept-encoding': 'gzip' } });
    expect(bytes.headers['content-encoding']).toBeUndefined();
    expect(bytes.rawPayload.length).toBe(5000);
  });
});

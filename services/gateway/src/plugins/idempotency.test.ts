import { MemoryCoordination } from '@chronicler/kit';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GatewayContext } from '../app.ts';
import type {} from './auth.ts';
import idempotency, { IDEMPOTENCY_KEY_MAX_LENGTH } from './idempotency.ts';

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
let created: { name: string }[];
/** When set, the create waits for it: lets a test hold the first request open. */
let gate: Promise<void> | null;
let entered: () => void;

beforeEach(async () => {
  coord = new MemoryCoordination();
  created = [];
  gate = null;
  entered = () => undefined;
  app = Fastify();
  app.decorate('ctx', { coord } as unknown as GatewayContext);
  await app.register(headerAuth);
  await app.register(idempotency);
  app.post<{ Body: { name: string } }>('/api/groups', async (req, reply) => {
    entered();
    if (gate) await gate;
    if (req.body.name === 'fail') return reply.code(400).send({ detail: 'bad name' });
    created.push(req.body);
    return reply.code(201).send({ id: `g${created.length}`, name: req.body.name });
  });
  app.post<{ Body: { name: string } }>('/api/other', async (req) => {
    created.push(req.body);
    return { ok: true };
  });
  await app.ready();
});
afterEach(async () => {
  await app.close();
  await coord.close();
});

const post = (body: object, headers: Record<string, string>, url = '/api/groups') =>
  app.inject({ method: 'POST', url, payload: body, headers: { 'x-user': 'u1', ...headers } });

describe('Idempotency-Key on creates', () => {
  it('replays the first response to a retry with the same key, creating once', async () => {
    const first = await post({ name: 'Strahd' }, { 'idempotency-key': 'k-1' });
    const retry = await post({ name: 'Strahd' }, { 'idempotency-key': '"k-1"' });
    expect(first.statusCode).toBe(201);
    expect(retry.statusCode).toBe(201);
    expect(retry.json()).toEqual(first.json());
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(created).toHaveLength(1);
  });

  it('answers 422 when the key is reused for a different request', async () => {
    await post({ name: 'Strahd' }, { 'idempotency-key': 'k-2' });
    const other = await post({ name: 'Barovia' }, { 'idempotency-key': 'k-2' });
    expect(other.statusCode).toBe(422);
    expect(created).toHaveLength(1);
  });

  it('keeps keys per user: the same key from another user runs', async () => {
    await post({ name: 'Strahd' }, { 'idempotency-key': 'shared' });
    const second = await post({ name: 'Strahd' }, { 'idempotency-key': 'shared', 'x-user': 'u2' });
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(created).toHaveLength(2);
  });

  it('does not keep a failed response: a retry runs again', async () => {
    const failed = await post({ name: 'fail' }, { 'idempotency-key': 'k-3' });
    const retry = await post({ name: 'fail' }, { 'idempotency-key': 'k-3' });
    expect(failed.statusCode).toBe(400);
    expect(retry.statusCode).toBe(400);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers 409 to a retry while the first request still runs', async () => {
    let open: () => void = () => undefined;
    gate = new Promise<void>((resolve) => (open = resolve));
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const first = post({ name: 'Slow' }, { 'idempotency-key': 'k-4' });
    await inside;
    const concurrent = await post({ name: 'Slow' }, { 'idempotency-key': 'k-4' });
    expect(concurrent.statusCode).toBe(409);
    open();
    expect((await first).statusCode).toBe(201);
    const after = await post({ name: 'Slow' }, { 'idempotency-key': 'k-4' });
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(created).toHaveLength(1);
  });

  it('refuses an empty or over-long key with 400, creating nothing', async () => {
    for (const key of ['""', 'k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH + 1)]) {
      expect((await post({ name: 'x' }, { 'idempotency-key': key })).statusCode).toBe(400);
    }
    expect(created).toEqual([]);
  });

  it('leaves routes outside the list, and requests without the header, alone', async () => {
    await post({ name: 'a' }, { 'idempotency-key': 'k-5' }, '/api/other');
    const again = await post({ name: 'a' }, { 'idempotency-key': 'k-5' }, '/api/other');
    await post({ name: 'b' }, {});
    await post({ name: 'b' }, {});
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(created).toHaveLength(4);
  });
});

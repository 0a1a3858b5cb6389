import { createLogger, loadConfig, type Platform } from '@chronicler/kit';
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
// A second gateway built from the gateway's own code on the same platform, configured as an
// operator behind a proxy would configure it (TRUST_PROXY set).
import { buildApp } from '../../services/gateway/src/app.ts';
import { GatewayConfigSchema } from '../../services/gateway/src/config.ts';
import { startDeepgramPeer, type DeepgramPeer } from '../peers/deepgram.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';
import { wav } from '../support/audio.ts';

/** Every log line the system writes, as text. */
function logSink(): { write(line: string): void; text(): string } {
  const lines: string[] = [];
  return { write: (line) => void lines.push(line), text: () => lines.join('') };
}

/** An address of this machine other than loopback, to tell "listens on 127.0.0.1" from "on every interface". */
const externalAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

/** True when a TCP connection to the address is accepted (an HTTP answer of any status). */
async function reachable(url: string): Promise<boolean> {
  try {
    await fetch(url);
    return true;
  } catch {
    return false;
  }
}

describe(`network edge: logs, idempotent creates, ops port (${testMode} mode)`, () => {
  let system: TestSystem;
  let deepgram: DeepgramPeer;
  const logs = logSink();

  beforeAll(async () => {
    deepgram = await startDeepgramPeer();
    system = await startSystem({
      env: {
        ...deepgram.env(),
        // debug: the gateway's one line per request, which carries the URL, is where tokens leaked.
        LOG_LEVEL: 'debug',
        AUTH_LOCAL_ENABLED: 'true',
        HOST: '',
        OPS_HOST: '',
      },
      logDestination: logs,
    });
  });
  afterAll(async () => {
    await system?.stop();
    await deepgram?.close();
  });

  const bearer = (token: string) => ({
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
  });

  const createGroup = (token: string, body: unknown, key?: string) =>
    fetch(`${system.url}/api/groups`, {
      method: 'POST',
      headers: { ...bearer(token), ...(key === undefined ? {} : { 'idempotency-key': key }) },
      body: JSON.stringify(body),
    });

  const groupCount = async (ownerId: string): Promise<number> => {
    const rows = await system.platform!.db.query<{ n: number }>(
      'select count(*)::int as n from "group".groups where owner_id = $1',
      [ownerId],
    );
    return rows[0]!.n;
  };

  it('never logs the socket token, the bearer token, the cookie or a sign-in password', async () => {
    const { body, cookie: token } = await localSignIn(system.url, `logged-${randomUUID().slice(0, 8)}`);
    expect(body.authenticated).toBe(true);
    const ws = new WebSocket(
      `${system.url.replace('http', 'ws')}/api/ws/chat?transcript_id=${randomUUID()}&token=${token}`,
    );
    // Whatever the socket's fate (opened, refused, closed), its request has been logged by then.
    await new Promise<void>((resolve) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', () => resolve());
      ws.once('error', () => resolve());
    });
    ws.terminate();
    await fetch(`${system.url}/api/auth/user`, { headers: { cookie: `access_token=${token}` } });
    await fetch(`${system.url}/api/transcripts?token=${token}`, { headers: bearer(token) });
    const password = `pw-${randomUUID()}`;
    await fetch(`${system.url}/api/auth/local`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'logged-pw', password }),
    });

    const text = logs.text();
    // The socket's request was logged by its route pattern: the access log never writes the URL,
    // so neither its query (the token) nor an id in it reaches the log.
    expect(text).toMatch(
      /"msg":"access"[^\n]*"route":"\/api\/ws\/chat"|"route":"\/api\/ws\/chat"[^\n]*"msg":"access"/,
    );
    expect(text).not.toMatch(/transcript_id=/);
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.split('.')[2]!);
    expect(text).not.toContain(password);
  });

  it('a create retried with the same Idempotency-Key answers the first result and creates once', async () => {
    const { body: me, cookie: token } = await localSignIn(system.url, `idem-${randomUUID().slice(0, 8)}`);
    const key = randomUUID();
    const first = await createGroup(token, { name: 'Curse of Strahd' }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const created = (await first.json()) as { id: string; name: string };
    expect(created.name).toBe('Curse of Strahd');

    const retry = await createGroup(token, { name: 'Curse of Strahd' }, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await retry.json()).toEqual(created);
    expect(await groupCount(me.user!.id)).toBe(1);

    const other = await createGroup(token, { name: 'Tomb of Annihilation' }, key);
    expect(other.status).toBe(422);
    expect(await other.json()).toEqual({
      detail: 'This Idempotency-Key was already used for a different request',
    });
    expect(await groupCount(me.user!.id)).toBe(1);
  });

  it('Idempotency-Key is per user: another user with the same key creates their own group', async () => {
    const a = await localSignIn(system.url, `idem-a-${randomUUID().slice(0, 8)}`);
    const b = await localSignIn(system.url, `idem-b-${randomUUID().slice(0, 8)}`);
    const key = `shared-${randomUUID()}`;
    const ga = (await (await createGroup(a.cookie, { name: 'Same' }, key)).json()) as { id: string };
    const resB = await createGroup(b.cookie, { name: 'Same' }, key);
    expect(resB.status).toBe(200);
    expect(resB.headers.get('idempotent-replayed')).toBeNull();
    const gb = (await resB.json()) as { id: string };
    expect(gb.id).not.toBe(ga.id);
    expect(await groupCount(a.body.user!.id)).toBe(1);
    expect(await groupCount(b.body.user!.id)).toBe(1);
  });

  it('concurrent retries with one key create one group: the others replay it or answer 409', async () => {
    const { body: me, cookie: token } = await localSignIn(system.url, `idem-c-${randomUUID().slice(0, 8)}`);
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => createGroup(token, { name: 'Raced' }, key)),
    );
    const answers = await Promise.all(
      responses.map(async (r) => ({
        status: r.status,
        body: (await r.json()) as { id?: string; detail?: string },
      })),
    );
    expect(answers.every((a) => a.status === 200 || a.status === 409)).toBe(true);
    const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.id));
    expect(ids.size).toBe(1);
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(a.body.detail).toMatch(/still being processed/);
    }
    expect(await groupCount(me.user!.id)).toBe(1);
    // Once the first has finished, a retry gets its result.
    const later = await createGroup(token, { name: 'Raced' }, key);
    expect(later.status).toBe(200);
    expect(((await later.json()) as { id: string }).id).toBe([...ids][0]);
  });

  it('refuses an Idempotency-Key longer than 255 characters with 400, creating nothing', async () => {
    const { body: me, cookie: token } = await localSignIn(system.url, `idem-l-${randomUUID().slice(0, 8)}`);
    const res = await createGroup(token, { name: 'Too long' }, 'k'.repeat(256));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: 'Idempotency-Key must be 1 to 255 characters' });
    expect(await groupCount(me.user!.id)).toBe(0);
    expect((await createGroup(token, { name: 'Just right' }, 'k'.repeat(255))).status).toBe(200);
    expect(await groupCount(me.user!.id)).toBe(1);
  });

  it('without Idempotency-Key every create creates, as before', async () => {
    const { body: me, cookie: token } = await localSignIn(system.url, `idem-n-${randomUUID().slice(0, 8)}`);
    const one = (await (await createGroup(token, { name: 'Twice' })).json()) as { id: string };
    const two = (await (await createGroup(token, { name: 'Twice' })).json()) as { id: string };
    expect(one.id).not.toBe(two.id);
    expect(await groupCount(me.user!.id)).toBe(2);
  });

  it('a retried manual session with the same Idempotency-Key is created once', async () => {
    const { body: me, cookie: token } = await localSignIn(system.url, `idem-t-${randomUUID().slice(0, 8)}`);
    const post = () =>
      fetch(`${system.url}/api/transcripts/manual`, {
        method: 'POST',
        headers: { ...bearer(token), 'idempotency-key': 'session-1' },
        body: JSON.stringify({
          name: 'Session one',
          session_date: '2015-03-12T00:00:00.000Z',
          transcript: 'MATT: Roll initiative.',
        }),
      });
    const first = await post();
    expect({ status: first.status, body: await first.clone().text() }).toMatchObject({ status: 200 });
    const created = (await first.json()) as { id: string };
    const retry = await post();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retry.json()) as { id: string }).id).toBe(created.id);
    const rows = await system.platform!.db.query<{ n: number }>(
      'select count(*)::int as n from transcript.transcripts where owner_id = $1',
      [me.user!.id],
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('a retried upload with the same Idempotency-Key is created once', async () => {
    const { body: me, cookie: token } = await localSignIn(system.url, `idem-u-${randomUUID().slice(0, 8)}`);
    const upload = () => {
      const form = new FormData();
      form.append('name', 'Recorded session');
      form.append('session_date', '2015-03-12T00:00:00.000Z');
      form.append('audio', new Blob([wav(32_000, 'silence')], { type: 'audio/wav' }), 'session.wav');
      return fetch(`${system.url}/api/transcripts/manual-audio`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'upload-1' },
        body: form,
      });
    };
    const first = await upload();
    expect(first.status).toBe(200);
    const created = (await first.json()) as { id: string };
    const retry = await upload();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retry.json()) as { id: string }).id).toBe(created.id);
    const rows = await system.platform!.db.query<{ n: number }>(
      'select count(*)::int as n from transcript.transcripts where owner_id = $1',
      [me.user!.id],
    );
    expect(rows[0]!.n).toBe(1);
  });

  it('serves /metrics only on the ops port; the public port answers 404', async () => {
    const pub = await fetch(`${system.url}/metrics`);
    expect(pub.status).toBe(404);
    expect(await pub.json()).toEqual({ detail: 'Not found: GET /metrics' });
    const ops = await fetch(`${system.opsUrl}/metrics`);
    expect(ops.status).toBe(200);
    expect(await ops.text()).toContain('chronicler_http_requests_total');
  });

  it.runIf(externalAddress !== undefined)(
    `listens on loopback only in embedded mode with local sign-in, on every interface in the cluster (${testMode})`,
    async () => {
      const port = new URL(system.url).port;
      const opsPort = new URL(system.opsUrl!).port;
      expect(await reachable(`http://127.0.0.1:${port}/api/health`)).toBe(true);
      expect(await reachable(`http://127.0.0.1:${opsPort}/healthz`)).toBe(true);
      const exposed = testMode === 'cluster';
      expect(await reachable(`http://${externalAddress}:${port}/api/health`)).toBe(exposed);
      expect(await reachable(`http://${externalAddress}:${opsPort}/healthz`)).toBe(exposed);
    },
  );
});

describe(`sign-in rate limit and X-Forwarded-For (${testMode} mode)`, () => {
  let system: TestSystem;
  let platform: Platform;
  let behindProxy: FastifyInstance;

  beforeAll(async () => {
    system = await startSystem({
      env: {
        AUTH_LOCAL_ENABLED: 'true',
        RATE_LIMIT_SIGN_IN_MAX: '5',
        TRUST_PROXY: '',
        // Each refused attempt logs a warning; this test counts them by status instead.
        LOG_LEVEL: 'error',
      },
    });
    platform = system.platform!;
    behindProxy = await buildApp({
      name: 'gateway',
      version: '0.0.0-test',
      instance: 'behind-proxy',
      config: loadConfig(GatewayConfigSchema, { ...system.env, PORT: '0', TRUST_PROXY: '127.0.0.1' }),
      bus: platform.bus,
      db: platform.db,
      schema: 'gateway',
      coord: platform.coord,
      logger: createLogger('gateway-behind-proxy', { level: 'error' }),
      platform,
    });
    await behindProxy.ready();
  });
  afterAll(async () => {
    await behindProxy?.close();
    await system?.stop();
  });

  it('by default ignores X-Forwarded-For: 35 sign-ins from rotating forwarded addresses get 429 past the limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 35; i++) {
      const res = await fetch(`${system.url}/api/auth/local`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `203.0.113.${i + 1}` },
        body: JSON.stringify({ username: `rotating-${i}` }),
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(await res.json()).toEqual({ detail: 'Too many requests. Please try again later.' });
      } else await res.body?.cancel();
    }
    // Whether a sign-in itself succeeds (a password may be required) does not matter here.
    expect(statuses.slice(0, 5).every((s) => s !== 429)).toBe(true);
    expect(statuses.slice(5)).toEqual(Array(30).fill(429));
  });

  it('with TRUST_PROXY naming the proxy, its X-Forwarded-For is the client address the limit counts', async () => {
    const signIn = (ip: string, i: number) =>
      behindProxy.inject({
        method: 'POST',
        url: '/api/auth/local',
        headers: { 'x-forwarded-for': ip },
        payload: { username: `proxied-${i}` },
      });
    // Each forwarded client has its own count: 10 clients, 2 attempts each, none refused.
    const distinct: number[] = [];
    for (let i = 0; i < 20; i++) distinct.push((await signIn(`198.51.100.${(i % 10) + 1}`, i)).statusCode);
    expect(distinct.filter((s) => s === 429)).toEqual([]);
    // One forwarded client alone reaches the limit.
    const one: number[] = [];
    for (let i = 0; i < 7; i++) one.push((await signIn('198.51.100.200', i)).statusCode);
    expect(one.slice(0, 5).every((s) => s !== 429)).toBe(true);
    expect(one.slice(5)).toEqual([429, 429]);
  });
});

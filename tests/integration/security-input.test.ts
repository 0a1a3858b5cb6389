import { SERVICES } from '@chronicler/all-in-one';
import {
  createGroupRpc,
  createManualTranscriptRpc,
  GROUP_NAME_MAX,
  renameTranscriptRpc,
  SESSION_NAME_MAX,
  updateGroupRpc,
  type Group,
  type TranscriptListItem,
} from '@chronicler/contracts';
import {
  call,
  createLogger,
  loadConfig,
  loadPlatformConfig,
  openPlatform,
  ServiceError,
  startService,
  type Platform,
  type RunningService,
} from '@chronicler/kit';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeepgramPeer, type DeepgramPeer } from '../peers/deepgram.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';
import { wav } from '../support/audio.ts';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/** A request with full control of the body and headers; the body is parsed when it is JSON. */
async function send(
  base: string,
  method: string,
  p: string,
  opts: { token?: string; json?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Buffer | undefined = opts.raw;
  if (opts.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(opts.json);
  }
  const res = await fetch(`${base}${p}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** The error format of every refusal: JSON with exactly one string field, `detail`. */
function expectDetail(a: Answer, status: number, detail?: string | RegExp): void {
  expect({ status: a.status, type: a.headers.get('content-type') }).toMatchObject({
    status,
    type: expect.stringContaining('application/json'),
  });
  expect(Object.keys(a.body as object)).toEqual(['detail']);
  const text = (a.body as { detail: unknown }).detail;
  expect(typeof text).toBe('string');
  expect(a.text).not.toMatch(/svc\.|FST_|statusCode|\bat .+\(.+:\d+/);
  if (typeof detail === 'string') expect(text).toBe(detail);
  else if (detail) expect(text).toMatch(detail);
}

/** A multipart/form-data body with the given boundary: name, date and one WAV file. */
function multipartBody(boundary: string): Buffer {
  const field = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  return Buffer.concat([
    Buffer.from(field('name', 'Session 3: Malformed') + field('session_date', '2015-03-12')),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="s.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    wav(4000),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

describe(`input validation and error answers (${testMode} mode)`, () => {
  let deepgram: DeepgramPeer;
  let system: TestSystem;
  let url: string;
  let token: string;
  let userId: string;

  beforeAll(async () => {
    deepgram = await startDeepgramPeer();
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', ...deepgram.env() } });
    url = system.url;
    const s = await localSignIn(url, 'validator');
    token = s.cookie;
    userId = s.body.user!.id;
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await deepgram?.close();
  });

  const api = (method: string, p: string, opts: Parameters<typeof send>[3] = {}) =>
    send(url, method, `/api${p}`, { token, ...opts });
  const sessions = async () => (await api('GET', '/transcripts')).body as TranscriptListItem[];
  const groups = async () => (await api('GET', '/groups')).body as Group[];
  const newSession = async (name = 'Session 1') => {
    const res = await api('POST', '/transcripts/manual', {
      json: { name, session_date: '2015-03-12', summary: 'The party rests.' },
    });
    expect(res.status).toBe(200);
    return res.body as TranscriptListItem;
  };
  const newGroup = async (name = 'Vox Machina') => {
    const res = await api('POST', '/groups', { json: { name } });
    expect(res.status).toBe(200);
    return res.body as Group;
  };

  describe('malformed multipart uploads (a speech provider configured)', () => {
    it('a multipart content type without a boundary answers 400 {detail} and stores nothing', async () => {
      const before = (await sessions()).length;
      const sent = deepgram.requests.length;
      const res = await api('POST', '/transcripts/manual-audio', {
        raw: multipartBody('abc123'),
        headers: { 'content-type': 'multipart/form-data' },
      });
      expectDetail(res, 400, 'The upload is not a valid multipart form. Please try again.');
      expect((await sessions()).length).toBe(before);
      expect(deepgram.requests.length).toBe(sent);
    });

    it("a body whose boundary differs from the header's answers 400 {detail} and stores nothing", async () => {
      const before = (await sessions()).length;
      const sent = deepgram.requests.length;
      const res = await api('POST', '/transcripts/manual-audio', {
        raw: multipartBody('the-body-boundary'),
        headers: { 'content-type': 'multipart/form-data; boundary=the-header-boundary' },
      });
      expectDetail(res, 400);
      expect((await sessions()).length).toBe(before);
      expect(deepgram.requests.length).toBe(sent);
    });

    it('a multipart body cut off inside the file answers 400 {detail} and stores nothing', async () => {
      const before = (await sessions()).length;
      const whole = multipartBody('cut-here');
      const res = await api('POST', '/transcripts/manual-audio', {
        raw: whole.subarray(0, whole.length - 2000),
        headers: { 'content-type': 'multipart/form-data; boundary=cut-here' },
      });
      expectDetail(res, 400, 'The upload is not a valid multipart form. Please try again.');
      expect((await sessions()).length).toBe(before);
    });

    it('an upload whose session name is over the limit is refused with the limit message', async () => {
      const form = new FormData();
      form.append('name', 'n'.repeat(SESSION_NAME_MAX + 1));
      form.append('session_date', '2015-03-12');
      form.append('audio', new Blob([wav(4000)], { type: 'audio/wav' }), 's.wav');
      const before = (await sessions()).length;
      const res = await fetch(`${url}/api/transcripts/manual-audio`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      expect({ status: res.status, body: await res.json() }).toEqual({
        status: 400,
        body: { detail: 'Session name cannot exceed 200 characters' },
      });
      expect((await sessions()).length).toBe(before);
    });
  });

  describe('name limits', () => {
    it('a group name of 100 characters is accepted; 101 is refused on create and rename, changing nothing', async () => {
      const longest = 'g'.repeat(GROUP_NAME_MAX);
      expect((await newGroup(longest)).name).toBe(longest);
      const before = (await groups()).length;
      const created = await api('POST', '/groups', { json: { name: `${longest}x` } });
      expectDetail(created, 400, 'Group name cannot exceed 100 characters');
      expect((await groups()).length).toBe(before);

      const g = await newGroup('Mighty Nein');
      const renamed = await api('PUT', `/groups/${g.id}`, { json: { name: 'x'.repeat(1_000_000) } });
      expectDetail(renamed, 400, 'Group name cannot exceed 100 characters');
      expect((await groups()).find((x) => x.id === g.id)?.name).toBe('Mighty Nein');
    });

    it('a 1,000,000-character group name is refused and not stored', async () => {
      const before = (await groups()).length;
      const res = await api('POST', '/groups', { json: { name: 'x'.repeat(1_000_000) } });
      expectDetail(res, 400, 'Group name cannot exceed 100 characters');
      expect((await groups()).length).toBe(before);
    });

    it('a session name of 200 characters is accepted; 201 is refused on create, update and rename', async () => {
      const longest = 's'.repeat(SESSION_NAME_MAX);
      const s = await newSession(longest);
      expect(s.name).toBe(longest);
      const over = `${longest}!`;
      const before = (await sessions()).length;
      expectDetail(
        await api('POST', '/transcripts/manual', {
          json: { name: over, session_date: '2015-03-12', summary: 'x' },
        }),
        400,
        'Session name cannot exceed 200 characters',
      );
      expect((await sessions()).length).toBe(before);
      expectDetail(
        await api('PUT', `/transcripts/${s.id}`, { json: { name: over, summary: '' } }),
        400,
        'Session name cannot exceed 200 characters',
      );
      expectDetail(
        await api('PUT', `/transcripts/${s.id}/rename`, { json: { name: over } }),
        400,
        'Session name cannot exceed 200 characters',
      );
      expect((await sessions()).find((x) => x.id === s.id)?.name).toBe(longest);
    });

    it('a 2,000,000-character session name answers 400 with the limit message, not an internal 413', async () => {
      const before = (await sessions()).length;
      const res = await api('POST', '/transcripts/manual', {
        json: { name: 'x'.repeat(2_000_000), session_date: '2015-03-12', summary: 'x' },
      });
      expectDetail(res, 400, 'Session name cannot exceed 200 characters');
      expect((await sessions()).length).toBe(before);
    });

    it('the services enforce the limits themselves when called over the bus', async () => {
      const bus = system.platform!.bus;
      const refusal = (p: Promise<unknown>) =>
        p.then(
          () => null,
          (err: unknown) => (err instanceof ServiceError ? { code: err.code, message: err.message } : err),
        );
      expect(await refusal(call(bus, createGroupRpc, { owner_id: userId, name: 'y'.repeat(101) }))).toEqual({
        code: 'bad_request',
        message: 'Group name cannot exceed 100 characters',
      });
      const g = await newGroup('Bus group');
      expect(
        await refusal(call(bus, updateGroupRpc, { owner_id: userId, id: g.id, name: 'y'.repeat(101) })),
      ).toEqual({ code: 'bad_request', message: 'Group name cannot exceed 100 characters' });
      expect(
        await refusal(
          call(bus, createManualTranscriptRpc, {
            owner_id: userId,
            name: 'y'.repeat(201),
            session_date: '2015-03-12',
            summary: 'x',
          }),
        ),
      ).toEqual({ code: 'bad_request', message: 'Session name cannot exceed 200 characters' });
      const s = await newSession('Bus session');
      expect(
        await refusal(call(bus, renameTranscriptRpc, { owner_id: userId, id: s.id, name: 'y'.repeat(201) })),
      ).toEqual({ code: 'bad_request', message: 'Session name cannot exceed 200 characters' });
      // Blanks around a name do not count against it.
      const padded = await call(bus, createGroupRpc, { owner_id: userId, name: `  ${'z'.repeat(100)}  ` });
      expect(padded.name).toBe('z'.repeat(100));
    });

    it('a body beyond the 1 MiB limit answers 413 {detail} without internal names', async () => {
      const res = await api('PUT', `/transcripts/${(await newSession()).id}/notes`, {
        json: { content: 'n'.repeat(1_100_000) },
      });
      expectDetail(res, 413, 'The request is too large.');
    });
  });

  describe('types are checked, never converted', () => {
    it('POST /api/groups {"name":123} answers 400 and creates no group', async () => {
      const before = await groups();
      for (const name of [123, ['a'], true, { a: 1 }, null]) {
        expectDetail(await api('POST', '/groups', { json: { name } }), 400, 'Group name must be a string');
      }
      expect((await groups()).map((g) => g.name)).toEqual(before.map((g) => g.name));
    });

    it('PUT /api/groups/:id {"name":["a"]} answers 400 and keeps the name', async () => {
      const g = await newGroup('Keep me');
      expectDetail(await api('PUT', `/groups/${g.id}`, { json: { name: ['a'] } }), 400);
      expectDetail(await api('PUT', `/groups/${g.id}`, { json: { summary: 5 } }), 400);
      expect((await groups()).find((x) => x.id === g.id)).toMatchObject({ name: 'Keep me', summary: '' });
    });

    it('session routes refuse numbers, lists and booleans where text is due', async () => {
      const s = await newSession('Typed');
      expectDetail(await api('PUT', `/transcripts/${s.id}/rename`, { json: { name: 7 } }), 400);
      expectDetail(await api('PUT', `/transcripts/${s.id}/summary`, { json: { summary: ['x'] } }), 400);
      expectDetail(await api('PUT', `/transcripts/${s.id}/notes`, { json: { content: false } }), 400);
      expectDetail(
        await api('POST', '/transcripts/manual', { json: { name: 'x', session_date: 20150312 } }),
        400,
        "Field 'session_date' must be a string",
      );
      expectDetail(
        await api('POST', '/groups', { raw: '[]', headers: { 'content-type': 'application/json' } }),
        400,
      );
      expect((await sessions()).find((x) => x.id === s.id)?.name).toBe('Typed');
    });

    it('query strings are still read as text', async () => {
      const res = await api('GET', '/users/stats?start=2015-03-01&end=2015-03-31');
      expect(res.status).toBe(200);
    });

    it('fields a route does not declare never reach the service', async () => {
      // Before, transcript_blob passed through to the transcript service, which tried to read it.
      const res = await api('POST', '/transcripts/manual', {
        json: {
          name: 'Extra',
          session_date: '2015-03-12',
          summary: 'x',
          transcript_blob: 'not-a-blob',
          owner_id: 'x',
        },
      });
      expect(res.status).toBe(200);
      const got = (await api('GET', `/transcripts/${(res.body as TranscriptListItem).id}`)).body;
      expect(got).toMatchObject({ name: 'Extra', content: '' });
    });

    it('a schema that forbids other fields refuses them instead of dropping them', async () => {
      const res = await send(url, 'POST', '/api/auth/google/credential', {
        json: { credential: 'x', is_admin: true },
      });
      expectDetail(res, 400, "Unknown field 'is_admin'");
    });
  });

  describe('router-level errors answer {detail}', () => {
    it('a 5,000-character id answers 404 on every id route', async () => {
      const id = 'a'.repeat(5000);
      for (const [method, p] of [
        ['GET', `/transcripts/${id}`],
        ['PUT', `/transcripts/${id}/rename`],
        ['DELETE', `/transcripts/${id}`],
        ['PUT', `/groups/${id}`],
        ['DELETE', `/groups/${id}`],
      ] as const) {
        const res = await api(method, p, method === 'PUT' ? { json: { name: 'x' } } : {});
        expectDetail(res, 404);
      }
    });

    it('a bad percent-encoding answers 400', async () => {
      expectDetail(await api('GET', '/transcripts/%E0%A4%A'), 400);
      expectDetail(await send(url, 'GET', '/api/groups/%zz'), 400);
    });

    it('an unsupported content type answers 415, invalid JSON and an empty JSON body 400', async () => {
      expectDetail(
        await api('POST', '/groups', {
          raw: '<name>x</name>',
          headers: { 'content-type': 'application/xml' },
        }),
        415,
        'Unsupported content type. Send JSON (application/json).',
      );
      expectDetail(
        await api('POST', '/groups', { raw: '{"name":', headers: { 'content-type': 'application/json' } }),
        400,
        'The request body is not valid JSON.',
      );
      expectDetail(
        await api('POST', '/groups', { raw: '', headers: { 'content-type': 'application/json' } }),
        400,
      );
      expectDetail(await api('POST', '/groups'), 400, 'The request body must be a JSON object');
    });

    it('an unknown API path answers 404', async () => {
      expectDetail(await api('GET', '/no/such/thing'), 404);
    });
  });
});

describe(`a gateway whose services do not answer (${testMode} mode)`, () => {
  let platform: Platform;
  let gateway: RunningService;
  let dataDir: string;
  let url: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-lone-gateway-'));
    const env: NodeJS.ProcessEnv = {
      DATA_DIR: dataDir,
      BUS_PREFIX: `t${randomBytes(4).toString('hex')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      ...(testMode === 'cluster'
        ? {
            NATS_URL: process.env.NATS_URL,
            DATABASE_URL: process.env.DATABASE_URL,
            REDIS_URL: process.env.REDIS_URL,
          }
        : {}),
    };
    const logger = createLogger(null, { level: 'silent' });
    platform = await openPlatform(loadPlatformConfig(env), { name: 'lone-gateway', logger });
    const def = SERVICES.find((s) => s.name === 'gateway')!;
    gateway = await startService(def, platform, { logger, config: loadConfig(def.config, env) as never });
    url = `http://127.0.0.1:${gateway.port}`;
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    await platform?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 with a generic message and Retry-After, never the internal subject', async () => {
    const providers = await send(url, 'GET', '/api/auth/providers');
    expectDetail(providers, 503, 'Service temporarily unavailable. Please try again.');
    expect(Number(providers.headers.get('retry-after'))).toBeGreaterThan(0);
    const signIn = await send(url, 'POST', '/api/auth/local', { json: { username: 'nobody' } });
    expect(signIn.status).toBeGreaterThanOrEqual(400);
    expect(signIn.text).not.toContain('svc.');
  });

  it('every 503 carries Retry-After, the health report too', async () => {
    const health = await send(url, 'GET', '/api/health');
    expect(health.status).toBe(503);
    expect(Number(health.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

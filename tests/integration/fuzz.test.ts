import type { Group, TranscriptListItem } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

/**
 * Random requests to every JSON route of the gateway, signed in and anonymous: random
 * bodies, ids and headers. Whatever is sent, the gateway answers below 500 (or 503 with
 * Retry-After), and every error is JSON `{detail: string}` naming no internal subject.
 * Deterministic: FUZZ_SEED picks another sequence (the seed is printed), FUZZ_REQUESTS
 * another count.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_310);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 1500);
const PARALLEL = 8;

/** mulberry32: small, fast and good enough to pick test inputs. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** `:id` is replaced by a random id. */
  path: string;
  /** Field names the route reads; random bodies use them most of the time. */
  fields?: string[];
  /** Query parameter names. */
  query?: string[];
  /** Would end the signed-in user's session: sent anonymously only. */
  anonymousOnly?: boolean;
}

/** Every JSON route under /api (services/gateway/src/routes). */
const ROUTES: Route[] = [
  { method: 'GET', path: '/health' },
  { method: 'GET', path: '/config' },
  { method: 'GET', path: '/openapi.json' },
  { method: 'GET', path: '/docs' },
  { method: 'GET', path: '/auth/providers' },
  { method: 'GET', path: '/auth/discord/login' },
  { method: 'GET', path: '/auth/google/login' },
  { method: 'GET', path: '/auth/discord/callback', query: ['code', 'state', 'error'] },
  { method: 'GET', path: '/auth/google/callback', query: ['code', 'state', 'error'] },
  { method: 'POST', path: '/auth/google/credential', fields: ['credential'] },
  { method: 'POST', path: '/auth/local', fields: ['username', 'password'], anonymousOnly: true },
  { method: 'GET', path: '/auth/user' },
  { method: 'GET', path: '/auth/logout', anonymousOnly: true },
  { method: 'GET', path: '/auth/debug-cookies' },
  { method: 'GET', path: '/transcripts', query: ['limit', 'after', 'cursor'] },
  { method: 'GET', path: '/transcripts/active' },
  {
    method: 'POST',
    path: '/transcripts/manual',
    fields: ['name', 'session_date', 'summary', 'transcript', 'group_id'],
  },
  { method: 'POST', path: '/transcripts/manual-audio', fields: ['name', 'session_date', 'audio'] },
  { method: 'GET', path: '/recordings/:id/all.zip' },
  { method: 'GET', path: '/recordings/:id/speakers/Matt.flac' },
  { method: 'GET', path: '/transcripts/:id' },
  { method: 'PUT', path: '/transcripts/:id', fields: ['name', 'summary', 'session_date', 'transcript'] },
  { method: 'DELETE', path: '/transcripts/:id' },
  { method: 'PUT', path: '/transcripts/:id/rename', fields: ['name'] },
  { method: 'PUT', path: '/transcripts/:id/assign-group', fields: ['group_id'] },
  { method: 'DELETE', path: '/transcripts/:id/remove-group' },
  { method: 'PUT', path: '/transcripts/:id/summary', fields: ['summary'] },
  { method: 'GET', path: '/transcripts/:id/notes' },
  { method: 'PUT', path: '/transcripts/:id/notes', fields: ['content'] },
  { method: 'POST', path: '/transcripts/:id/generate-summary' },
  { method: 'GET', path: '/admin/transcripts/:id/llm-summary' },
  { method: 'GET', path: '/groups', query: ['limit', 'after', 'cursor'] },
  { method: 'POST', path: '/groups', fields: ['name'] },
  { method: 'PUT', path: '/groups/:id', fields: ['name', 'summary'] },
  { method: 'DELETE', path: '/groups/:id' },
  { method: 'POST', path: '/groups/:id/summary' },
  { method: 'POST', path: '/groups/:id/check-summary' },
  { method: 'GET', path: '/groups/:id/prep' },
  { method: 'POST', path: '/groups/:id/prep', fields: ['text'] },
  {
    method: 'PATCH',
    path: '/groups/:id/prep/00000000-0000-4000-8000-000000000000',
    fields: ['text', 'done'],
  },
  { method: 'DELETE', path: '/groups/:id/prep/00000000-0000-4000-8000-000000000000' },
  { method: 'POST', path: '/groups/:id/prep/carry', fields: ['transcript_id'] },
  { method: 'GET', path: '/users/stats', query: ['start', 'end'] },
  { method: 'GET', path: '/discord/servers' },
  { method: 'GET', path: '/discord/servers/:id/settings' },
  { method: 'GET', path: '/discord/servers/:id/directory' },
  {
    method: 'PUT',
    path: '/discord/servers/:id/settings',
    fields: ['consent_mode', 'language', 'starter_roles', 'auto_record', 'default_group_id'],
  },
  { method: 'POST', path: '/chat', fields: ['messages', 'transcript_id', 'model', 'temperature'] },
];

const STRINGS = [
  '',
  ' ',
  'Vox Machina',
  '../../etc/passwd',
  '..%2f..%2f',
  '%00',
  '\u0000',
  'svc',
  '\ud800',
  '👾🐉',
  'Ω≈ç√∫',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '2015-03-12',
  'not-a-date',
  '-1',
  '1e309',
  'null',
  'true',
  '{}',
];

/** encodeURIComponent, with lone surrogates (which it refuses) made U+FFFD first. */
const enc = (s: string): string =>
  encodeURIComponent(
    s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  );

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=zzz',
  'application/xml',
  'application/octet-stream',
  '',
  'garbage/;;;=',
];

describe(`fuzz of the JSON routes (${testMode} mode)`, () => {
  let system: TestSystem;
  let token = '';
  const realIds: string[] = [];

  beforeAll(async () => {
    system = await startSystem({
      env: {
        AUTH_LOCAL_ENABLED: 'true',
        // The fuzz sends more than a person would; the limits have their own tests.
        RATE_LIMIT_IP_MAX: '1000000',
        RATE_LIMIT_USER_MAX: '1000000',
        RATE_LIMIT_SIGN_IN_MAX: '1000000',
        // Cluster mode needs it for the OAuth routes (without it they refuse as misconfigured).
        ...(testMode === 'cluster' ? { PUBLIC_URL: 'http://127.0.0.1' } : {}),
      },
    });
    token = (await localSignIn(system.url, 'fuzzer')).cookie;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (let i = 0; i < 3; i++) {
      const s = await fetch(`${system.url}/api/transcripts/manual`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `Session ${i}`, session_date: '2015-03-12', summary: 'Rest.' }),
      });
      realIds.push(((await s.json()) as TranscriptListItem).id);
      const g = await fetch(`${system.url}/api/groups`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `Group ${i}` }),
      });
      realIds.push(((await g.json()) as Group).id);
    }
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  it(`answers ${REQUESTS} random requests without a 5xx, every error as {detail}`, async () => {
    console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} repeats this run), ${REQUESTS} requests`);
    const rand = prng(SEED);
    const int = (n: number) => Math.floor(rand() * n);
    const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
    const chance = (p: number) => rand() < p;

    const randomString = (): string => {
      switch (int(6)) {
        case 0:
          return pick(STRINGS);
        case 1:
          return 'x'.repeat(pick([1, 99, 100, 101, 199, 200, 201, 10_001, 200_000]));
        case 2:
          return Array.from({ length: int(40) }, () => String.fromCodePoint(int(0x2ffff))).join('');
        case 3:
          return pick(realIds);
        default:
          return Array.from({ length: int(20) }, () => String.fromCharCode(32 + int(95))).join('');
      }
    };
    const randomJson = (depth: number): unknown => {
      switch (int(depth > 2 ? 5 : 8)) {
        case 0:
          return null;
        case 1:
          return chance(0.5);
        case 2:
          return pick([0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, 3]);
        case 3:
        case 4:
          return randomString();
        case 5:
          return Array.from({ length: int(4) }, () => randomJson(depth + 1));
        default:
          return Object.fromEntries(
            Array.from({ length: int(4) }, () => [
              chance(0.5) ? randomString() : 'content',
              randomJson(depth + 1),
            ]),
          );
      }
    };
    const randomBody = (route: Route): { raw?: string; json?: unknown } => {
      if (chance(0.1))
        return { raw: pick(['{', '', 'null', '[]', '"x"', '{"a":1}{}', '\u0000', '{"name":"a",}']) };
      if (chance(0.15)) return { json: randomJson(0) };
      const fields = route.fields ?? ['name'];
      const body: Record<string, unknown> = {};
      for (const f of fields) if (chance(0.7)) body[f] = chance(0.5) ? randomString() : randomJson(1);
      if (route.path === '/chat' && chance(0.3))
        body.messages = [{ role: pick(['user', 'x', 1]), content: randomString() }];
      if (chance(0.2)) body[randomString().slice(0, 30)] = randomJson(1);
      return { json: body };
    };
    const randomId = (): string => {
      switch (int(8)) {
        case 0:
          return pick(realIds);
        case 1:
          return 'a'.repeat(pick([150, 199, 200, 201, 300, 5000]));
        case 2:
          return pick(['..', '%2e%2e', '..%2F..%2Fetc', '%E0%A4%A', '%zz', '%00', '%C0%AF', '.', '%20']);
        case 3:
          return enc(randomString().slice(0, 300)) || 'x';
        case 4:
          return crypto.randomUUID();
        default:
          return enc(pick(STRINGS)) || 'empty';
      }
    };
    const randomQuery = (route: Route): string => {
      if (!route.query || chance(0.3)) return chance(0.1) ? '?%E0%A4%A=1&&=&a[b]=c' : '';
      const parts = route.query
        .filter(() => chance(0.6))
        .flatMap((q) =>
          Array.from({ length: chance(0.1) ? 2 : 1 }, () => `${q}=${enc(randomString().slice(0, 500))}`),
        );
      return parts.length ? `?${parts.join('&')}` : '';
    };

    interface Planned {
      description: string;
      method: string;
      url: string;
      headers: Record<string, string>;
      body?: string;
    }
    const plan: Planned[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const route = pick(ROUTES);
      const signedIn = !route.anonymousOnly && chance(0.6);
      const headers: Record<string, string> = {};
      if (signedIn) headers.authorization = `Bearer ${token}`;
      else if (chance(0.3)) {
        headers.authorization = pick([
          'Bearer ',
          'Bearer x.y.z',
          `Bearer ${token.slice(0, -3)}abc`,
          'Basic Zm9vOmJhcg==',
          `Bearer ${'a'.repeat(9000)}`,
          'garbage',
        ]);
      }
      if (chance(0.2)) headers.origin = pick(['http://evil.example', 'null', system.url, 'file://', '']);
      if (chance(0.1)) {
        // The real token as a cookie only where it cannot end the session (logout).
        const cookies = ['access_token=garbage', '=;;;', 'a=%E0%A4%A'];
        headers.cookie = pick(route.anonymousOnly ? cookies : [...cookies, `access_token=${token}`]);
      }
      let body: string | undefined;
      if (route.method !== 'GET' && chance(0.9)) {
        const b = randomBody(route);
        body = b.raw ?? JSON.stringify(b.json);
        headers['content-type'] = chance(0.8) ? 'application/json' : pick(CONTENT_TYPES);
        if (!headers['content-type']) delete headers['content-type'];
      }
      const p = route.path.replace(':id', randomId());
      const url = `${system.url}/api${p}${randomQuery(route)}`;
      plan.push({
        description: `#${i} ${route.method} ${url.slice(system.url.length, 200)} ${JSON.stringify(headers).slice(0, 200)} ${String(body).slice(0, 200)}`,
        method: route.method,
        url,
        headers,
        body,
      });
    }

    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    const worker = async () => {
      while (next < plan.length) {
        const r = plan[next++]!;
        let res: Response;
        try {
          res = await fetch(r.url, {
            method: r.method,
            headers: r.headers,
            body: r.body,
            redirect: 'manual',
          });
        } catch (err) {
          failures.push(`${r.description}: request failed: ${String(err)}`);
          continue;
        }
        const text = await res.text();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const problem = judge(res, text);
        if (problem) failures.push(`${r.description}: ${res.status} ${problem}: ${text.slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    console.log(
      `fuzz statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`,
    );
    expect(failures.slice(0, 10)).toEqual([]);
  }, 120_000);
});

/** What is wrong with an answer, or null. */
function judge(res: Response, text: string): string | null {
  if (res.status < 400) return null;
  if (res.status >= 500 && res.status !== 503) return 'a server error';
  if (res.status === 503 && !res.headers.get('retry-after')) return '503 without Retry-After';
  if (text.includes('svc.')) return 'an internal subject in the answer';
  if (!res.headers.get('content-type')?.includes('application/json')) return 'an error that is not JSON';
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'an error body that does not parse';
  }
  // The health report answers 503 with its own body when a service is down.
  if (res.status === 503 && body && typeof body === 'object' && 'services' in body) return null;
  const keys = body && typeof body === 'object' ? Object.keys(body) : [];
  if (keys.length !== 1 || keys[0] !== 'detail' || typeof (body as { detail: unknown }).detail !== 'string') {
    return 'an error body that is not {detail: string}';
  }
  return null;
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

type Line = Record<string, unknown>;

// The gateway's access log, read from the services' real log output at the default level:
// exactly one line per request, with what an operator needs and nothing a user typed.
describe(`access log (${testMode} mode)`, () => {
  let system: TestSystem;
  const lines: Line[] = [];
  const access = () => lines.filter((l) => l.service === 'gateway' && l.msg === 'access');

  beforeAll(async () => {
    system = await startSystem({
      env: { LOG_LEVEL: 'info', ACCESS_LOG_SAMPLE: '1', AUTH_LOCAL_ENABLED: 'true' },
      logDestination: { write: (line) => void lines.push(JSON.parse(line) as Line) },
    });
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('writes one line per request: route pattern, status, duration, user id; no token, no query value', async () => {
    const { body, cookie } = await localSignIn(system.url, 'Access Log Tester');
    expect(body.user?.id).toEqual(expect.any(String));
    const before = access().length;
    const headers = { cookie: `access_token=${cookie}` };
    const requests: [string, number][] = [
      ['/api/transcripts?q=dragon-hoard-secret&limit=5', 200],
      ['/api/transcripts/00000000-0000-4000-8000-000000000000', 404],
      ['/api/groups', 200],
    ];
    for (const [url, status] of requests)
      expect((await fetch(`${system.url}${url}`, { headers })).status, url).toBe(status);
    // One more without signing in: refused, and logged without a user.
    expect((await fetch(`${system.url}/api/groups?token=${cookie}`)).status).toBe(401);

    await waitFor(() => access().length >= before + 4);
    const mine = access().slice(before);
    expect(mine.map((l) => [l.method, l.route, l.status])).toEqual([
      ['GET', '/api/transcripts', 200],
      ['GET', '/api/transcripts/:id', 404],
      ['GET', '/api/groups', 200],
      ['GET', '/api/groups', 401],
    ]);
    for (const l of mine.slice(0, 3)) expect(l.userId).toBe(body.user?.id);
    expect(mine[3]).not.toHaveProperty('userId');
    for (const l of mine) {
      expect(l.level).toBe('info');
      expect(l.durationMs).toEqual(expect.any(Number));
      expect(l.reqId).toEqual(expect.any(String));
    }
    const text = JSON.stringify(lines);
    expect(text).not.toContain('dragon-hoard-secret');
    expect(text).not.toContain(cookie);
  });
});

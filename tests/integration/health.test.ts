import { SERVICE_NAMES, type HealthResponse } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

describe(`health (${testMode} mode)`, () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startSystem();
  });
  afterAll(async () => {
    await system?.stop();
  });

  it('GET /api/health lists all ten services up (the voice bot idle without its token), each with a semver version', async () => {
    const res = await fetch(`${system.url}/api/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as HealthResponse;
    expect(body.status).toBe('ok');
    // No speech-to-text setting in this system: the operator sees that nobody transcribes.
    expect(body.speech_provider).toBeNull();
    expect(body.services).toHaveLength(10);
    expect(body.services.map((s) => s.name).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const s of body.services) {
      if (s.name === 'voice-bot') {
        expect(s).toMatchObject({ status: 'idle', detail: 'no DISCORD_BOT_TOKEN' });
      } else {
        expect(s.status).toBe('up');
        expect(s.detail).toBeUndefined();
      }
      expect(s.version).toMatch(/^\d+\.\d+\.\d+/);
    }
  });

  it('serves /healthz, /readyz and Prometheus /metrics on the ops port, not on the public one', async () => {
    const ops = system.opsUrl!;
    expect((await fetch(`${ops}/healthz`)).status).toBe(200);
    const ready = await fetch(`${ops}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      checks: { bus: true, database: true, redis: true },
    });
    await fetch(`${system.url}/api/health`);
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    expect(metrics).toContain('process_cpu_user_seconds_total');
    expect(metrics).toMatch(/chronicler_bus_requests_total\{subject="svc\.auth\.ping",outcome="ok"\} \d+/);
    expect(metrics).toMatch(
      /chronicler_http_requests_total\{method="GET",route="\/api\/health",status="200"\} \d+/,
    );
    for (const p of ['/metrics', '/healthz', '/readyz']) {
      const res = await fetch(`${system.url}${p}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: `Not found: GET ${p}` });
    }
  });

  it('answers unknown API paths with a JSON 404 in the {"detail"} shape', async () => {
    const res = await fetch(`${system.url}/api/no-such-thing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not found: GET /api/no-such-thing' });
  });
});

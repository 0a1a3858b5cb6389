import type { HealthResponse } from '@chronicler/contracts';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivateNatsServer } from '../support/nats-server.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

// One process per service, as `pnpm start:cluster` and the Helm chart run them. Uses a
// private nats-server so that the test can stop and restart it.
describe.runIf(testMode === 'cluster')('cluster mode: ten processes', () => {
  let nats: PrivateNatsServer;
  let system: TestSystem;

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    system = await startSystem({ processes: 'many', env: { NATS_URL: nats.url } });
  }, 120_000);

  afterAll(async () => {
    await system?.stop();
    await nats?.dispose();
  });

  const health = async (): Promise<HealthResponse | undefined> => {
    const res = await fetch(`${system.url}/api/health`).catch(() => undefined);
    return res ? ((await res.json()) as HealthResponse) : undefined;
  };

  it('all ten services answer /api/health from their own processes', async () => {
    expect(system.children.size).toBe(10);
    const body = await health();
    expect(body?.status).toBe('ok');
    expect(body?.services.filter((s) => s.status === 'up')).toHaveLength(9);
    // Without a DISCORD_BOT_TOKEN the voice bot runs idle, which does not degrade the system.
    expect(body?.services.find((s) => s.name === 'voice-bot')).toMatchObject({
      status: 'idle',
      detail: 'no DISCORD_BOT_TOKEN',
    });
  });

  it('runs summary and admin-stats below the default CPU priority (every thread), the others at it', () => {
    /** The nice value of each thread of a process (Linux: /proc/<pid>/task/<tid>/stat, field 19). */
    const nices = (pid: number): Map<number, number> =>
      new Map(
        fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
          const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
          // The command name (field 2) may hold spaces: the fields after it follow its closing ')'.
          return [Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
        }),
      );
    for (const [name, child] of system.children) {
      const threads = nices(child.pid!);
      expect(threads.size, name).toBeGreaterThan(1);
      const want = name === 'summary' || name === 'admin-stats' ? 10 : 0;
      // The main thread (tid = pid), which serves, and every other thread; those of the offline
      // AI pool may sit lower still (AI_OFFLINE_NICE), never higher.
      expect(threads.get(child.pid!), name).toBe(want);
      expect(Math.min(...threads.values()), name).toBe(want);
    }
  });

  it('reconnects by itself after nats-server stops and starts again, without restarting a process', async () => {
    const pids = [...system.children.values()].map((c) => c.pid);
    await nats.stop();
    await waitFor(async () => (await health())?.status === 'degraded', 20_000, 200);
    const down = await health();
    expect(down?.services.every((s) => s.status === 'down')).toBe(true);

    await nats.restart();
    await waitFor(async () => (await health())?.status === 'ok', 60_000, 250);
    expect(
      (await health())?.services.every((s) => s.status === (s.name === 'voice-bot' ? 'idle' : 'up')),
    ).toBe(true);
    for (const child of system.children.values()) expect(child.exitCode).toBeNull();
    expect([...system.children.values()].map((c) => c.pid)).toEqual(pids);
  }, 120_000);

  it('stops a service process cleanly on SIGTERM, and /api/health reports just that one down', async () => {
    const bot = system.children.get('voice-bot')!;
    const exited = new Promise<number | null>((resolve) => bot.once('exit', (code) => resolve(code)));
    bot.kill('SIGTERM');
    expect(await exited).toBe(0);
    const body = await health();
    expect(body?.status).toBe('degraded');
    expect(body?.services.filter((s) => s.status === 'down').map((s) => s.name)).toEqual(['voice-bot']);
    // A service that is down still reports the version it last answered with.
    expect(body?.services.find((s) => s.name === 'voice-bot')?.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('still reports health to a signed-in browser while the auth service is down', async () => {
    const auth = system.children.get('auth')!;
    const exited = new Promise((resolve) => auth.once('exit', resolve));
    auth.kill('SIGTERM');
    await exited;
    // A token that would need the auth service to check it: the public route goes on anonymously.
    const res = await fetch(`${system.url}/api/health`, { headers: { authorization: 'Bearer aaa.bbb.ccc' } });
    const body = (await res.json()) as HealthResponse;
    expect(body.services.find((s) => s.name === 'auth')?.status).toBe('down');
    // A protected route cannot check the token and says so, rather than answering as if signed out.
    const groups = await fetch(`${system.url}/api/groups`, {
      headers: { authorization: 'Bearer aaa.bbb.ccc' },
    });
    expect(groups.status).toBe(503);
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, freePort, nodeEntry, repoRoot, testMode, waitFor } from '../support/system.ts';

// A process as the chart (or `pnpm start`) runs it: its exit code, its log lines, its ops port.
interface Run {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

const runs: Run[] = [];
const dirs: string[] = [];

function run(entry: string, env: NodeJS.ProcessEnv): Run {
  const child = spawn(process.execPath, nodeEntry(entry), {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  let rest = '';
  child.stdout!.on('data', (b: Buffer) => {
    const parts = (rest + b.toString()).split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) if (p.trim()) lines.push(JSON.parse(p) as Record<string, unknown>);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const r = { child, lines, exited };
  runs.push(r);
  return r;
}

const said = (r: Run, words: string) => r.lines.some((l) => String(l.msg).includes(words));

afterAll(async () => {
  for (const r of runs) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe(`the ops port (${testMode} mode)`, () => {
  it('when taken, stops the start with a message naming OPS_PORT, not a bare EADDRINUSE', async () => {
    const taken = net.createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-ops-'));
      dirs.push(dataDir);
      const env =
        testMode === 'cluster'
          ? {
              NATS_URL: process.env.NATS_URL,
              DATABASE_URL: process.env.DATABASE_URL,
              REDIS_URL: process.env.REDIS_URL,
              AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
            }
          : {};
      const entry =
        testMode === 'cluster' ? 'services/gateway/src/main.ts' : 'services/all-in-one/src/main.ts';
      const r = run(entry, {
        ...env,
        DATA_DIR: dataDir,
        PORT: '0',
        OPS_PORT: String(port),
        OPS_HOST: '127.0.0.1',
      });
      expect(await r.exited).toBe(78);
      const fatal = r.lines.find((l) => l.level === 'fatal');
      expect(fatal?.msg).toMatch(/OPS_PORT: port \d+ on 127\.0\.0\.1 is taken .*set OPS_PORT to a free port/);
    } finally {
      taken.close();
    }
  }, 60_000);
});

// The chart's release step: a pre-install/pre-upgrade Job runs each service with MIGRATIONS=job,
// and the pods run with MIGRATIONS=wait. PostgreSQL only: the embedded mode migrates in process.
describe.runIf(testMode === 'cluster')('migrations as a release step (cluster mode)', () => {
  const migrations = readdirSync(path.join(repoRoot, 'services/chat/migrations')).filter((f) =>
    f.endsWith('.sql'),
  );
  let db: { url: string; drop(): Promise<void> } | undefined;
  afterAll(async () => {
    for (const r of runs) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    await Promise.all(runs.map((r) => r.exited));
    await db?.drop();
  });

  it('a pod waits for its schema, alive but not ready, until the Job has applied it; the Job says what it did', async () => {
    db = await createTestDatabase(process.env.DATABASE_URL);
    const ops = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-release-'));
    dirs.push(dataDir);
    const pod = run('services/chat/src/main.ts', {
      NATS_URL: process.env.NATS_URL,
      REDIS_URL: process.env.REDIS_URL,
      DATABASE_URL: db.url,
      BUS_PREFIX: `rel${randomBytes(4).toString('hex')}`,
      DATA_DIR: dataDir,
      OPS_PORT: String(ops),
      MIGRATIONS: 'wait',
    });
    const ready = async () => {
      const res = await fetch(`http://127.0.0.1:${ops}/readyz`);
      return { status: res.status, body: (await res.json()) as { status: string } };
    };
    await waitFor(() => said(pod, 'waiting for the release to apply migrations'), 60_000);
    expect((await fetch(`http://127.0.0.1:${ops}/healthz`)).status).toBe(200);
    expect(await ready()).toEqual({ status: 503, body: { status: 'starting', checks: {} } });
    expect(pod.lines.find((l) => String(l.msg).startsWith('waiting'))?.pending).toEqual(migrations);

    // The Job: the same program, DATABASE_URL only.
    const job = run('services/chat/src/main.ts', { DATABASE_URL: db.url, MIGRATIONS: 'job' });
    expect(await job.exited).toBe(0);
    expect(job.lines.find((l) => l.msg === 'migrations applied')).toMatchObject({
      schema: 'chat',
      applied: migrations,
    });
    await waitFor(async () => (await ready()).status === 200, 30_000);
    expect((await ready()).body.status).toBe('ready');

    // An upgrade with nothing new: the Job finds the schema up to date.
    const again = run('services/chat/src/main.ts', { DATABASE_URL: db.url, MIGRATIONS: 'job' });
    expect(await again.exited).toBe(0);
    expect(said(again, 'schema already up to date')).toBe(true);

    // SIGTERM: not ready any more, then a clean exit.
    pod.child.kill('SIGTERM');
    expect(await pod.exited).toBe(0);
  }, 120_000);

  it('a Job that cannot migrate fails with a message naming the schema, and exits non-zero', async () => {
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/chronicler_missing_${randomBytes(3).toString('hex')}`;
    const job = run('services/chat/src/main.ts', { DATABASE_URL: url.toString(), MIGRATIONS: 'job' });
    expect(await job.exited).toBe(1);
    expect(job.lines.find((l) => l.level === 'fatal')?.msg).toMatch(/^migration of schema "chat" failed: /);
    const bad = run('services/chat/src/main.ts', { DATABASE_URL: 'not a url', MIGRATIONS: 'job' });
    expect(await bad.exited).toBe(78);
    expect(bad.lines.find((l) => l.level === 'fatal')?.msg).toContain('DATABASE_URL');
  }, 60_000);
});

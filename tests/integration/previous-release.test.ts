import { SERVICE_NAMES, SERVICE_NEEDS } from '@chronicler/contracts';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import {
  createTestDatabase,
  freePort,
  nodeEntry,
  repoRoot,
  stopChild,
  testMode,
  waitFor,
} from '../support/system.ts';

// A rolling upgrade: this release's migration Jobs have run, and the previous release's pods
// still serve on the schema they left. The previous release is the commit before the newest
// one that added a migration (PREVIOUS_RELEASE names another), its code taken from git and run
// with this checkout's dependencies (the same lockfile, or the test says it cannot run).
const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();

const sameLockfile = (ref: string) =>
  git('rev-parse', `${ref}:pnpm-lock.yaml`) === git('hash-object', path.join(repoRoot, 'pnpm-lock.yaml'));

/**
 * PREVIOUS_RELEASE, else the commit before the newest one that added a migration; when that one
 * has other dependencies than this checkout can run, the oldest commit since the lockfile last
 * changed (the same dependencies; its schema may equal this one's, until a migration is added).
 */
function previousRelease(): string {
  if (process.env.PREVIOUS_RELEASE) return git('rev-parse', process.env.PREVIOUS_RELEASE);
  const added = git(
    'log',
    '-1',
    '--diff-filter=A',
    '--format=%H',
    '--',
    ':(glob)services/*/migrations/*.sql',
  );
  const before = git('rev-parse', `${added}^`);
  if (sameLockfile(before)) return before;
  return git('log', '-1', '--first-parent', '--format=%H', '--', 'pnpm-lock.yaml');
}

describe.runIf(testMode === 'cluster')('the previous release on this release’s schema (cluster mode)', () => {
  const ref = testMode === 'cluster' ? previousRelease() : '';
  const tree = mkdtempSync(path.join(os.tmpdir(), 'chronicler-prev-'));
  const children: ChildProcess[] = [];
  let db: { url: string; drop(): Promise<void> };
  let url = '';

  beforeAll(async () => {
    expect(sameLockfile(ref), `${ref} has another pnpm-lock.yaml: set PREVIOUS_RELEASE`).toBe(true);
    // The previous release's code, with this checkout's installed dependencies: each package's
    // node_modules is a farm of relative links, copied so that workspace links stay in the old tree.
    execFileSync('sh', ['-c', `git archive ${ref} | tar -x -C ${tree}`], { cwd: repoRoot });
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(tree, 'node_modules'));
    for (const dir of ['services', 'services/shared']) {
      for (const name of [...SERVICE_NAMES, 'kit', 'contracts', 'ai', 'speech', 'all-in-one']) {
        const from = path.join(repoRoot, dir, name, 'node_modules');
        const to = path.join(tree, dir, name, 'node_modules');
        if (existsSync(from) && existsSync(path.dirname(to)))
          cpSync(from, to, { recursive: true, verbatimSymlinks: true });
      }
    }

    db = await createTestDatabase();
    const base = { PATH: process.env.PATH, DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
    // This release's migration Jobs, in the chart's order.
    for (const name of SERVICE_NAMES.filter((n) => SERVICE_NEEDS[n].schema)) {
      const job = spawn(process.execPath, nodeEntry(`services/${name}/src/main.ts`), {
        cwd: repoRoot,
        env: { ...base, MIGRATIONS: 'job' },
        stdio: 'inherit',
      });
      expect(await new Promise((r) => job.once('exit', r)), `${name} migration Job`).toBe(0);
    }

    // The previous release's services, waiting for their schema as the chart's pods do.
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const env = {
      ...base,
      NATS_URL: process.env.NATS_URL,
      REDIS_URL: process.env.REDIS_URL,
      BUS_PREFIX: `prev${randomBytes(4).toString('hex')}`,
      AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
      AUTH_LOCAL_ENABLED: 'true',
      MIGRATIONS: 'wait',
      DATA_DIR: path.join(tree, 'data'),
      PORT: String(port),
    };
    for (const name of SERVICE_NAMES) {
      if (!existsSync(path.join(tree, 'services', name, 'src/main.ts'))) continue;
      children.push(
        spawn(process.execPath, ['--import', 'tsx', `services/${name}/src/main.ts`], {
          cwd: tree,
          env: { ...env, OPS_PORT: String(await freePort()) },
          stdio: ['ignore', 'ignore', 'inherit'],
        }),
      );
    }
    await waitFor(
      async () => (await fetch(`${url}/api/health`).catch(() => undefined))?.status === 200,
      120_000,
    );
  }, 300_000);

  afterAll(async () => {
    await Promise.all(children.map(stopChild));
    await db?.drop();
    rmSync(tree, { recursive: true, force: true });
  });

  it('serves: every service up, a sign-in, a session made and read back', async () => {
    const health = (await (await fetch(`${url}/api/health`)).json()) as {
      status: string;
      services: { name: string; status: string }[];
    };
    expect(health.status).toBe('ok');
    const token = (await localSignIn(url, 'Previous Release')).cookie;
    const made = await apiCall<{ id: string }>(url, 'POST', '/transcripts/manual', token, {
      name: 'Rolling upgrade',
      session_date: '2026-11-28T00:00:00.000Z',
      transcript: 'Alice: hello\nBob: hi',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const read = await apiCall<{ name: string }>(url, 'GET', `/transcripts/${made.body.id}`, token);
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('Rolling upgrade');
  });
});

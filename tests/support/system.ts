import { startEmbedded, type EmbeddedSystem } from '@chronicler/all-in-one';
import { SERVICE_NAMES } from '@chronicler/contracts';
import { createLogger, type Platform } from '@chronicler/kit';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `embedded` unless the runner (tests/run.mjs) says `cluster`. */
export const testMode: 'embedded' | 'cluster' =
  process.env.CHRONICLER_TEST_MODE === 'cluster' ? 'cluster' : 'embedded';

export interface TestSystem {
  readonly url: string;
  readonly mode: 'embedded' | 'cluster';
  readonly env: NodeJS.ProcessEnv;
  /** The child processes, when started with `processes: 'many'`. */
  readonly children: Map<string, ChildProcess>;
  /** The bus, database and Redis the services use, when started with `processes: 'one'`. */
  readonly platform?: Platform;
  /** The process's ops listener (/healthz, /readyz, /metrics), when started with `processes: 'one'`. */
  readonly opsUrl?: string;
  /**
   * With `processes: 'many'`: starts one more process of a service (`key` names it in
   * `children`, default the service's name, replacing a dead one), e.g. a second gateway
   * on another PORT or a service again after a kill -9. Resolves once it has started.
   */
  spawn?(service: string, opts?: { key?: string; env?: NodeJS.ProcessEnv }): Promise<ChildProcess>;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** A fresh PostgreSQL database on the server of DATABASE_URL, dropped by the returned function. */
export async function createTestDatabase(
  baseUrl = process.env.DATABASE_URL,
): Promise<{ url: string; drop(): Promise<void> }> {
  if (!baseUrl) throw new Error('DATABASE_URL is not set');
  const name = `chronicler_t_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface StartOptions {
  /** `one`: every service in this process (fast). `many`: one child process per service. */
  processes?: 'one' | 'many';
  /** Extra environment for the services. */
  env?: NodeJS.ProcessEnv;
  mode?: 'embedded' | 'cluster';
  /** Where the services' log lines go (with `processes: 'one'`), e.g. to assert what is logged. */
  logDestination?: { write(line: string): void };
}

/**
 * Starts Chronicler for a test: its own data directory (embedded) or its own database and
 * bus/Redis namespace (cluster), so test files never see each other's data.
 */
export async function startSystem(opts: StartOptions = {}): Promise<TestSystem> {
  const mode = opts.mode ?? testMode;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-it-'));
  const prefix = `t${randomBytes(4).toString('hex')}`;
  const cleanups: (() => Promise<void>)[] = [async () => rmSync(dataDir, { recursive: true, force: true })];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    BUS_PREFIX: prefix,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ...opts.env,
  };
  if (mode === 'embedded') {
    delete env.NATS_URL;
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
  } else {
    for (const v of ['NATS_URL', 'DATABASE_URL', 'REDIS_URL']) {
      if (!env[v]) throw new Error(`cluster mode needs ${v}`);
    }
    // Separate processes must share the token key; the embedded mode generates its own.
    env.AUTH_JWT_SECRET ??= randomBytes(32).toString('base64url');
    if (!opts.env?.DATABASE_URL) {
      const db = await createTestDatabase(env.DATABASE_URL);
      env.DATABASE_URL = db.url;
      cleanups.push(() => db.drop());
    }
  }

  if ((opts.processes ?? 'one') === 'one') {
    // A test that must know the address before the start (PUBLIC_URL) picks the port itself.
    env.PORT = opts.env?.PORT ?? '0';
    env.OPS_PORT ??= '0';
    let system: EmbeddedSystem;
    try {
      system = await startEmbedded(env, {
        logger: createLogger(null, { level: env.LOG_LEVEL, destination: opts.logDestination }),
      });
    } catch (err) {
      for (const c of cleanups.reverse()) await c();
      throw err;
    }
    return {
      url: `http://127.0.0.1:${system.port}`,
      mode,
      env,
      children: new Map(),
      platform: system.platform,
      opsUrl: `http://127.0.0.1:${system.opsPort}`,
      async stop() {
        await system.stop();
        for (const c of cleanups.reverse()) await c();
      },
    };
  }

  const port = await freePort();
  env.PORT = String(port);
  const children = new Map<string, ChildProcess>();
  const start = async (name: string, extra: NodeJS.ProcessEnv = {}): Promise<ChildProcess> =>
    spawn(process.execPath, ['--import', 'tsx', `services/${name}/src/main.ts`], {
      cwd: repoRoot,
      env: { ...env, OPS_PORT: String(await freePort()), ...extra },
      // TEST_CHILD_LOGS=1 shows the services' log lines (LOG_LEVEL from TEST_LOG_LEVEL).
      stdio: ['ignore', process.env.TEST_CHILD_LOGS ? 'inherit' : 'ignore', 'inherit'],
    });
  for (const name of SERVICE_NAMES) children.set(name, await start(name));
  const system: TestSystem = {
    url: `http://127.0.0.1:${port}`,
    mode,
    env,
    children,
    async spawn(service, o = {}) {
      const child = await start(service, o.env);
      children.set(o.key ?? service, child);
      return child;
    },
    async stop() {
      await Promise.all(
        [...children.values()].map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
              c.once('exit', () => {
                clearTimeout(t);
                resolve();
              });
              c.kill('SIGTERM');
            }),
        ),
      );
      for (const c of cleanups.reverse()) await c();
    },
  };
  try {
    await waitFor(async () => {
      const res = await fetch(`${system.url}/api/health`).catch(() => undefined);
      return res?.status === 200;
    }, 90_000);
  } catch (err) {
    await system.stop();
    throw err;
  }
  return system;
}

/** Polls `check` until it returns true, or throws after `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

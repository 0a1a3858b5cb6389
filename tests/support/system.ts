import { SERVICES, startEmbedded, type EmbeddedSystem } from '@chronicler/all-in-one';
import { SERVICE_NAMES } from '@chronicler/contracts';
import { createLogger, migrate, openDatabase, schemaFor, type Platform } from '@chronicler/kit';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { deleteStreams, ownedBy } from './bus-namespace.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Node's arguments for running a file of this checkout's services (`services/<name>/src/….ts`)
 * in a child process. `pnpm test` builds the services once (`scripts/build.mjs --services
 * --if-stale`) and sets CHRONICLER_TEST_COMPILED=1: the children then run the compiled code
 * with plain node, as the images do, at about a third of tsx's start-up CPU (5.3 s against
 * 1.9 s a service on the 2-core machines, where every spawned process competes with the
 * suite). Without it (`npx vitest run` on a checkout being edited) they run the sources
 * through tsx.
 */
export function nodeEntry(src: string, compiled = process.env.CHRONICLER_TEST_COMPILED === '1'): string[] {
  const m = /^(services\/(?:shared\/)?[^/]+)\/src\/(.+)\.ts$/.exec(src);
  if (!m) throw new Error(`nodeEntry: ${src} is not a service's source file`);
  return compiled ? ['--enable-source-maps', `${m[1]}/dist/${m[2]}.js`] : ['--import', 'tsx', src];
}

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
   * With `processes: 'many'`: each child's ops listener (/metrics), by its key in `children`,
   * for the processes running now (a restarted one has its new address).
   */
  opsUrls?(): Map<string, string>;
  /**
   * With `processes: 'many'`: starts one more process of a service (`key` names it in
   * `children`, default the service's name, replacing a dead one), e.g. a second gateway
   * on another PORT or a service again after a kill -9. Resolves once it has started.
   */
  spawn?(service: string, opts?: { key?: string; env?: NodeJS.ProcessEnv }): Promise<ChildProcess>;
  stop(): Promise<void>;
}

// Ports handed out by this process, so two calls never return the same one.
const handedOut = new Set<number>();

/**
 * A port free on every interface, picked below Linux's ephemeral range (32768-60999): the
 * kernel gives those to outgoing connections (to PostgreSQL, NATS, Redis, each other), so a
 * port that was free when checked could be taken by a connection before the service binds it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (handedOut.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const srv = net.createServer();
      srv.unref();
      srv.once('error', () => resolve(false));
      srv.listen(port, '0.0.0.0', () => srv.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
  }
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

/**
 * A PGlite data directory with every service's migrations applied, as an embedded system's
 * first start leaves it (initdb in WASM, then about forty migrations: some seconds on a busy
 * 2-core machine), made once per set of migrations and copied into each test system's
 * DATA_DIR: the system then starts as the product does on its second start. A test that gives
 * its own DATA_DIR gets the first start. Kept in the temporary directory under a hash of the
 * migrations and the lockfile (a new migration or PGlite version makes another).
 */
let templateMade: Promise<string> | undefined;
/**
 * Templates of other migrations or lockfiles (about 40 MB each), and builds a killed run left,
 * once a day old: a checkout still on them makes its own again when it next runs.
 */
function removeOldTemplates(keep: string): void {
  for (const name of readdirSync(os.tmpdir())) {
    const dir = path.join(os.tmpdir(), name);
    if (!name.startsWith('chronicler-pglite-') || dir === keep) continue;
    try {
      if (Date.now() - statSync(dir).mtimeMs > 24 * 3600_000) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Gone meanwhile (another worker), or not ours to remove.
    }
  }
}

function pgliteTemplate(): Promise<string> {
  templateMade ??= (async () => {
    const hash = createHash('sha256').update(readFileSync(path.join(repoRoot, 'pnpm-lock.yaml')));
    for (const def of SERVICES) {
      if (!def.migrationsDir) continue;
      for (const f of readdirSync(def.migrationsDir).sort())
        hash.update(f).update(readFileSync(path.join(def.migrationsDir, f)));
    }
    const done = path.join(os.tmpdir(), `chronicler-pglite-${hash.digest('hex').slice(0, 16)}`);
    if (existsSync(path.join(done, 'pglite'))) return done;
    const building = mkdtempSync(path.join(os.tmpdir(), 'chronicler-pglite-building-'));
    const db = await openDatabase({ dataDir: path.join(building, 'pglite') });
    const logger = createLogger(null, { level: 'error' });
    for (const def of SERVICES) {
      if (def.migrationsDir)
        await migrate(db, { schema: schemaFor(def.name), migrationsDir: def.migrationsDir, logger });
    }
    await db.close();
    try {
      renameSync(building, done);
    } catch {
      // Another test worker made it first.
      rmSync(building, { recursive: true, force: true });
    }
    removeOldTemplates(done);
    return done;
  })();
  return templateMade;
}

export interface StartOptions {
  /**
   * `one`: every service in this process (fast). `many`: child processes started as in
   * production: one per service in cluster mode, the embedded runner (`all-in-one`) alone in
   * embedded mode, e.g. to observe a process from outside (its traces, its exit).
   */
  processes?: 'one' | 'many';
  /** Extra environment for the services. */
  env?: NodeJS.ProcessEnv;
  mode?: 'embedded' | 'cluster';
  /** Where the services' log lines go (with `processes: 'one'`), e.g. to assert what is logged. */
  logDestination?: { write(line: string): void };
  /**
   * With `processes: 'many'`: only these services (the gateway is always started), e.g. the
   * gateway, auth and transcript services a benchmark of the session API needs. Default: all.
   */
  services?: readonly string[];
  /**
   * With `processes: 'many'`: run each service's compiled code (`dist/main.js`, built by
   * `node scripts/build.mjs --services`) with plain node as the images do, instead of its
   * sources through tsx (whose compiler alone adds tens of MiB to each process). Default: as
   * the run says (`nodeEntry`).
   */
  compiled?: boolean;
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
    // A data directory without a database (this start's own, or one a test gave so that a
    // restart finds its data) gets the migrated template instead of an initdb in WASM; one
    // that has a database (a restart) keeps it.
    const pglite = path.join(env.DATA_DIR!, 'pglite');
    if (!existsSync(pglite)) {
      cpSync(path.join(await pgliteTemplate(), 'pglite'), pglite, { recursive: true });
    }
  } else {
    for (const v of ['NATS_URL', 'DATABASE_URL', 'REDIS_URL']) {
      if (!env[v]) throw new Error(`cluster mode needs ${v}`);
    }
    // Separate processes must share the token key; the embedded mode generates its own.
    env.AUTH_JWT_SECRET ??= randomBytes(32).toString('base64url');
    // Its streams go when it stops (a suite run again and again would pile them up), unless
    // the test gave the prefix: then it may start another system on them (a restart).
    if (!opts.env?.BUS_PREFIX) {
      const natsUrl = env.NATS_URL!;
      cleanups.push(async () => {
        // Best effort: a test may have stopped its own NATS server by now.
        await deleteStreams(natsUrl, ownedBy(prefix)).catch(() => undefined);
      });
    }
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
  const opsPorts = new WeakMap<ChildProcess, string>();
  const start = async (name: string, extra: NodeJS.ProcessEnv = {}): Promise<ChildProcess> => {
    const childEnv = { ...env, OPS_PORT: String(await freePort()), ...extra };
    // TEST_NODE_ARGS adds Node options to every child (e.g. `--cpu-prof --cpu-prof-dir=DIR`).
    const nodeArgs = (process.env.TEST_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const args = [...nodeArgs, ...nodeEntry(`services/${name}/src/main.ts`, opts.compiled)];
    const child = spawn(process.execPath, args, {
      cwd: repoRoot,
      env: childEnv,
      // TEST_CHILD_LOGS=1 shows the services' log lines (LOG_LEVEL from TEST_LOG_LEVEL).
      stdio: ['ignore', process.env.TEST_CHILD_LOGS ? 'inherit' : 'ignore', 'inherit'],
    });
    opsPorts.set(child, childEnv.OPS_PORT!);
    return child;
  };
  const names =
    mode === 'embedded'
      ? ['all-in-one']
      : opts.services
        ? SERVICE_NAMES.filter((n) => n === 'gateway' || opts.services!.includes(n))
        : SERVICE_NAMES;
  for (const name of names) children.set(name, await start(name));
  const system: TestSystem = {
    url: `http://127.0.0.1:${port}`,
    mode,
    env,
    children,
    opsUrls() {
      const urls = new Map<string, string>();
      for (const [key, child] of children) {
        if (child.exitCode === null && child.signalCode === null)
          urls.set(key, `http://127.0.0.1:${opsPorts.get(child)}`);
      }
      return urls;
    },
    async spawn(service, o = {}) {
      const child = await start(service, o.env);
      children.set(o.key ?? service, child);
      return child;
    },
    async stop() {
      await Promise.all([...children.values()].map(stopChild));
      for (const c of cleanups.reverse()) await c();
    },
  };
  try {
    // A service that dies while starting (a port taken by another test file in the window
    // between check and bind) is started again on a new port, twice at most, and a third
    // death fails the start naming the service instead of waiting out the deadline.
    const restarts = new Map<string, number>();
    await waitFor(async () => {
      for (const [name, child] of children) {
        if (child.exitCode === null && child.signalCode === null) continue;
        const n = (restarts.get(name) ?? 0) + 1;
        if (n > 2)
          throw new Error(`${name} exited while starting (code ${child.exitCode}); see its output above`);
        restarts.set(name, n);
        children.set(name, await start(name));
      }
      const res = await fetch(`${system.url}/api/health`).catch(() => undefined);
      if (!opts.services) return res?.status === 200;
      // A subset leaves the others down (503): ready once every started one answers.
      if (res?.status !== 200 && res?.status !== 503) return false;
      const body = (await res.json()) as { services: { name: string; status: string }[] };
      return names.every((n) => body.services.some((s) => s.name === n && s.status !== 'down'));
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

/** Stops a child process: SIGTERM (a graceful shutdown), SIGKILL if it is still there after 10 s. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

import { pingRpc, type ServiceName } from '@chronicler/contracts';
import type { Static, TObject } from '@sinclair/typebox';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bus, Subscription } from '../bus/types.ts';
import { ConfigError, loadConfig } from '../config.ts';
import type { Coordination } from '../coord/types.ts';
import { migrate, pendingMigrations } from '../db/index.ts';
import type { DatabaseHandle } from '../db/types.ts';
import type { Logger } from '../logger.ts';
import type { Platform } from './platform.ts';
import { serve } from './rpc.ts';

export interface ServiceContext<C> {
  readonly name: ServiceName;
  readonly version: string;
  /** host:pid, to tell replicas apart in logs and pings. */
  readonly instance: string;
  readonly config: C;
  readonly bus: Bus;
  readonly db: DatabaseHandle;
  /** The PostgreSQL schema this service owns. */
  readonly schema: string;
  readonly coord: Coordination;
  readonly logger: Logger;
  readonly platform: Platform;
}

export interface StartedService {
  /** Stops accepting work (unsubscribes, closes servers) and waits for work in flight. */
  stop(): Promise<void>;
  /** The port a service that listens (the gateway) actually got, e.g. when asked for port 0. */
  port?: number;
}

export interface ServiceDefinition<C extends TObject = TObject> {
  name: ServiceName;
  version: string;
  /** The service's own environment variables (the platform's are read separately). */
  config: C;
  /**
   * Problems between variables that the schema cannot express (a provider named without its
   * key): each names the variable to set, and stops the start as a bad value does.
   */
  checkConfig?(config: Static<C>): { variable: string; message: string }[];
  /** Committed SQL migrations, applied to the service's schema at start. */
  migrationsDir?: string;
  /**
   * How far below the default CPU priority (Linux nice, 0-19) the service runs as a process of
   * its own; PROCESS_NICE overrides it. Work that can wait (a summary, a usage count) gives way,
   * on a host it shares, to the work a user waits on: lines reaching viewers, requests. Not
   * applied in embedded mode, where services share one process.
   */
  nice?: number;
  start(ctx: ServiceContext<Static<C>>): Promise<StartedService | void>;
}

export function defineService<C extends TObject>(def: ServiceDefinition<C>): ServiceDefinition<C> {
  return def;
}

/** The `version` of the package.json next to the given module's `src/` folder. */
export function packageVersion(moduleUrl: string): string {
  const dir = path.dirname(fileURLToPath(moduleUrl));
  const pkg = JSON.parse(readFileSync(path.join(dir, '..', 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

export const schemaFor = (name: ServiceName): string => name.replace(/-/g, '_');

export interface RunningService {
  readonly name: ServiceName;
  readonly port?: number;
  stop(): Promise<void>;
}

/**
 * The service's config from the environment, checked by the schema and then by the service's
 * own checkConfig; throws a ConfigError naming every bad variable.
 */
export function loadServiceConfig<C extends TObject>(
  def: ServiceDefinition<C>,
  env: NodeJS.ProcessEnv = process.env,
): Static<C> {
  const config = loadConfig(def.config, env);
  const problems = def.checkConfig?.(config) ?? [];
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/**
 * How a process brings its schema up to date: `apply` the committed migrations itself (under
 * the schema's lock: one machine, `pnpm start:cluster`), or `wait` until they are applied by
 * the release's migration Job (the Helm chart's pods), so that a long migration never makes
 * every replica crash-loop against its probes.
 */
export interface MigrationPolicy {
  mode: 'apply' | 'wait';
  /** See MigrateOptions.lockTimeoutMs. */
  lockTimeoutMs?: number;
  /** How often `wait` looks again. */
  pollMs?: number;
  /** Ends a `wait` (the process is stopping). */
  signal?: AbortSignal;
}

/** Waits until `schema` has every committed migration, saying which it waits for. */
async function waitForSchema(
  platform: Platform,
  def: ServiceDefinition,
  policy: MigrationPolicy,
  logger: Logger,
): Promise<void> {
  const opts = { schema: schemaFor(def.name), migrationsDir: def.migrationsDir! };
  let said = '';
  for (;;) {
    const pending = await pendingMigrations(platform.db, opts);
    if (pending.length === 0) return;
    const now = pending.join(',');
    if (now !== said) {
      logger.warn(
        { schema: opts.schema, pending },
        'waiting for the release to apply migrations (MIGRATIONS=wait: the chart runs them in a Job before the pods start)',
      );
      said = now;
    }
    policy.signal?.throwIfAborted();
    await new Promise((r) => setTimeout(r, policy.pollMs ?? 2000));
  }
}

/** Reads the service's config, migrates its schema (or waits for it), answers ping, then starts it. */
export async function startService<C extends TObject>(
  def: ServiceDefinition<C>,
  platform: Platform,
  opts: {
    logger: Logger;
    env?: NodeJS.ProcessEnv;
    config?: Static<C>;
    migrations?: MigrationPolicy;
  },
): Promise<RunningService> {
  const config = opts.config ?? loadServiceConfig(def, opts.env);
  const schema = schemaFor(def.name);
  const logger = opts.logger;
  const policy = opts.migrations ?? { mode: 'apply' };
  if (def.migrationsDir && policy.mode === 'wait') {
    await waitForSchema(platform, def as unknown as ServiceDefinition, policy, logger);
  } else if (def.migrationsDir) {
    await migrate(platform.db, {
      schema,
      migrationsDir: def.migrationsDir,
      lockTimeoutMs: policy.lockTimeoutMs,
      logger,
    });
  }
  const instance = `${os.hostname()}:${process.pid}`;
  const ctx: ServiceContext<Static<C>> = {
    name: def.name,
    version: def.version,
    instance,
    config,
    bus: platform.bus,
    db: platform.db,
    schema,
    coord: platform.coord,
    logger,
    platform,
  };
  const started = await def.start(ctx);
  const ping: Subscription = serve(platform.bus, pingRpc(def.name), () => ({
    name: def.name,
    status: 'up' as const,
    version: def.version,
    instance,
  }));
  logger.info({ version: def.version, mode: platform.mode }, 'service started');
  return {
    name: def.name,
    port: started?.port,
    async stop() {
      await ping.unsubscribe();
      await started?.stop();
    },
  };
}

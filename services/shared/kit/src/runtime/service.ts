import { pingRpc, type ServiceName } from '@chronicler/contracts';
import type { Static, TObject } from '@sinclair/typebox';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bus, Subscription } from '../bus/types.ts';
import { ConfigError, loadConfig } from '../config.ts';
import type { Coordination } from '../coord/types.ts';
import { migrate } from '../db/index.ts';
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

/** Reads the service's config, migrates its schema, answers ping, then starts it. */
export async function startService<C extends TObject>(
  def: ServiceDefinition<C>,
  platform: Platform,
  opts: { logger: Logger; env?: NodeJS.ProcessEnv; config?: Static<C> },
): Promise<RunningService> {
  const config = opts.config ?? loadServiceConfig(def, opts.env);
  const schema = schemaFor(def.name);
  const logger = opts.logger;
  if (def.migrationsDir) {
    await migrate(platform.db, { schema, migrationsDir: def.migrationsDir });
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

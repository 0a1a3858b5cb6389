import { Type, type Static } from '@sinclair/typebox';
import path from 'node:path';
import { createBus } from '../bus/index.ts';
import type { ServiceNeeds } from '@chronicler/contracts';
import type { Bus } from '../bus/types.ts';
import { Env, loadConfig } from '../config.ts';
import { createCoordination } from '../coord/index.ts';
import type { Coordination } from '../coord/types.ts';
import { openDatabase } from '../db/index.ts';
import type { DatabaseHandle } from '../db/types.ts';
import type { Logger } from '../logger.ts';
import type { ReadinessCheck } from '../ops/routes.ts';

/**
 * What every process connects to. Each of the three is chosen by configuration alone:
 * NATS_URL → NATS, else the in-process bus; DATABASE_URL → PostgreSQL, else PGlite in
 * DATA_DIR; REDIS_URL → Redis, else memory.
 */
export const PlatformConfigSchema = Type.Object({
  NATS_URL: Type.Optional(Env.url({ description: 'NATS server(s), e.g. nats://127.0.0.1:4222' })),
  DATABASE_URL: Type.Optional(
    Env.url({ description: 'PostgreSQL, e.g. postgres://user@host:5432/chronicler' }),
  ),
  REDIS_URL: Type.Optional(Env.url({ description: 'Redis, e.g. redis://127.0.0.1:6379' })),
  DATA_DIR: Type.String({ default: './data', minLength: 1 }),
  BUS_PREFIX: Type.String({ default: 'chronicler', pattern: '^[A-Za-z0-9_-]+$' }),
  /** JetStream replicas of the streams and buckets this process creates (3 in a NATS cluster). */
  NATS_STREAM_REPLICAS: Type.Integer({ default: 1, minimum: 1, maximum: 5 }),
});
export type PlatformConfig = Static<typeof PlatformConfigSchema>;

export interface Platform {
  readonly bus: Bus;
  readonly db: DatabaseHandle;
  readonly coord: Coordination;
  readonly dataDir: string;
  readonly mode: 'embedded' | 'cluster';
  /**
   * Redis of the cluster, for what needs its own connections (the socket.io adapter's
   * pub/sub); null in embedded mode. Keys and channels start with `prefix`.
   */
  readonly redisUrl: string | null;
  /** BUS_PREFIX: the namespace of this deployment on NATS and Redis. */
  readonly prefix: string;
  readonly readiness: ReadinessCheck[];
  /**
   * Closes dependencies before what they write to: drain the bus (handlers in flight finish
   * and may still write), then the database, then Redis.
   */
  close(): Promise<void>;
}

export function loadPlatformConfig(env: NodeJS.ProcessEnv = process.env): PlatformConfig {
  return loadConfig(PlatformConfigSchema, env);
}

/**
 * A service that owns no schema (the gateway, the voice bot) gets no database in cluster mode:
 * no DATABASE_URL, no pool, no readiness on PostgreSQL. A query through this handle is a bug
 * of the declaration (charts/chronicler/needs.json), and says so.
 */
function noDatabase(name: string): DatabaseHandle {
  const refuse = (): never => {
    throw new Error(`${name} owns no database schema (charts/chronicler/needs.json): it has no database`);
  };
  return {
    kind: 'postgres',
    query: async () => refuse(),
    transaction: async () => refuse(),
    ping: async () => false,
    close: async () => {},
  };
}

/**
 * Opens what the process connects to. With `needs` (a service's own declaration, cluster
 * mode), a service without a schema opens no database, and /readyz checks only what the
 * service needs: a PostgreSQL outage leaves the gateway and the live path in their Services.
 */
export async function openPlatform(
  cfg: PlatformConfig,
  opts: { name: string; logger: Logger; needs?: ServiceNeeds },
): Promise<Platform> {
  const needs = opts.needs;
  const withDatabase = !needs || needs.schema;
  const dataDir = path.resolve(cfg.DATA_DIR);
  const bus = await createBus({
    natsUrl: cfg.NATS_URL,
    prefix: cfg.BUS_PREFIX,
    streamReplicas: cfg.NATS_STREAM_REPLICAS,
    dataDir,
    name: opts.name,
    logger: opts.logger.child({ component: 'bus' }),
  });
  let db: DatabaseHandle | undefined;
  let coord: Coordination | undefined;
  try {
    db = withDatabase
      ? await openDatabase({
          url: cfg.DATABASE_URL,
          dataDir: path.join(dataDir, 'pglite'),
          logger: opts.logger.child({ component: 'db' }),
        })
      : noDatabase(opts.name);
    coord = await createCoordination({
      redisUrl: cfg.REDIS_URL,
      prefix: cfg.BUS_PREFIX,
      logger: opts.logger.child({ component: 'coord' }),
    });
  } catch (err) {
    await db?.close().catch(() => {});
    await bus.close().catch(() => {});
    throw err;
  }
  const database = db;
  const coordination = coord;
  return {
    bus,
    db: database,
    coord: coordination,
    dataDir,
    mode: cfg.NATS_URL ? 'cluster' : 'embedded',
    redisUrl: cfg.REDIS_URL ?? null,
    prefix: cfg.BUS_PREFIX,
    readiness: [
      ...(!needs || needs.bus ? [{ name: 'bus', check: () => bus.isConnected() }] : []),
      ...(withDatabase ? [{ name: 'database', check: () => database.ping() }] : []),
      ...(!needs || needs.redis ? [{ name: 'redis', check: () => coordination.ping() }] : []),
    ],
    async close() {
      await bus.close();
      await database.close();
      await coordination.close();
    },
  };
}

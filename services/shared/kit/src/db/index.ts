import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { ServiceError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { createKeyedSerializer, pgliteConnection, registerInternals, withPoolClient } from './connection.ts';
import type { Connection, TxRunner } from './connection.ts';
import { StatementNames } from './prepared.ts';
import { traceQueries } from './tracing.ts';
import type { DatabaseHandle, OpenDatabaseOptions, Queryable } from './types.ts';

export type {
  DatabaseHandle,
  MigrateOptions,
  MigrateResult,
  OpenDatabaseOptions,
  Queryable,
} from './types.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * Whether an id can be a row's uuid. Stores answer "no such row" for anything else rather
 * than let PostgreSQL refuse the parameter with an error.
 */
export const isUuid = (id: string): boolean => UUID.test(id);

/** A transaction on `conn` whose queries are typed like the handle's. */
function transactionOn<R>(
  conn: Connection,
  driver: 'pg' | 'pglite',
  fn: (tx: Queryable) => Promise<R>,
): Promise<R> {
  return conn.transaction((tx: TxRunner) => {
    const query = traceQueries('postgresql', driver, (sql, params) => tx.query(sql, params));
    return fn({
      async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
        return (await query(sql, params)) as T[];
      },
    });
  });
}
export { migrate, pendingMigrations } from './migrate.ts';

/** How long ping() waits before calling the database unreachable (readiness must answer). */
const PING_TIMEOUT_MS = 5_000;

/**
 * Opens the database: a node-postgres pool when `url` is set (cluster), otherwise PGlite in
 * `dataDir` (embedded; one instance shared by every service of the process, each service in
 * its own schema). Close the handle when done: PGlite keeps the process alive until then.
 */
export async function openDatabase(opts: OpenDatabaseOptions): Promise<DatabaseHandle> {
  if (opts.url) return openPostgres(opts.url, opts);
  if (opts.dataDir) return openPglite(opts.dataDir);
  // No silent in-memory default: a forgotten data directory would lose every write on restart.
  throw new Error(
    'openDatabase needs either `url` (PostgreSQL) or `dataDir` (PGlite; `memory://` for a throwaway database)',
  );
}

async function openPglite(dataDir: string): Promise<DatabaseHandle> {
  const pglite = new PGlite(pgliteLocation(dataDir));
  await pglite.waitReady;
  let closing: Promise<void> | undefined;
  const query = traceQueries(
    'postgresql',
    'pglite',
    async (sql, params) => (await pglite.query(sql, params)).rows,
  );

  const handle: DatabaseHandle = {
    kind: 'pglite',
    async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
      return (await query(sql, params)) as T[];
    },
    transaction: (fn) => transactionOn(pgliteConnection(pglite), 'pglite', fn),
    ping: () => pingWith(() => pglite.query('select 1')),
    close() {
      closing ??= pglite.closed ? Promise.resolve() : pglite.close();
      return closing;
    },
  };
  registerInternals(handle, {
    withConnection: (fn) => fn(pgliteConnection(pglite)),
    serialize: createKeyedSerializer(),
  });
  return handle;
}

/** Maps `dataDir` to what PGlite expects, creating a filesystem directory when missing. */
function pgliteLocation(dataDir: string): string {
  if (dataDir.startsWith('memory://') || dataDir.startsWith('idb://')) return dataDir;
  const dir = dataDir.startsWith('file://') ? fileURLToPath(dataDir) : resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function openPostgres(url: string, opts: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const logger = opts.logger ?? createLogger('db');
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    // Without a bound, a query issued while PostgreSQL is unreachable waits forever for a
    // connection instead of failing (and readiness would hang rather than report it).
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // Cluster networks drop idle TCP flows silently; keepalive notices it before a query does.
    keepAlive: true,
    types: { getTypeParser: pgliteCompatibleParser },
  });
  // An idle client whose connection drops (server restart, failover, idle kill) makes the
  // pool emit 'error'; unhandled, that event would crash the process. The pool discards the
  // client by itself and opens a new one on the next query, so logging is all that is left.
  pool.on('error', (err) => {
    logger.error({ err }, 'idle PostgreSQL connection failed; the pool replaces it');
  });

  let closing: Promise<void> | undefined;
  const names = new StatementNames();
  const query = traceQueries('postgresql', 'pg', (sql, params) => names.run(pool, sql, params, true));

  const handle: DatabaseHandle = {
    kind: 'postgres',
    async query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]> {
      return (await unavailableWhenUnreachable(query(sql, params))) as T[];
    },
    transaction: (fn) =>
      unavailableWhenUnreachable(
        withPoolClient(pool, logger, (conn) => transactionOn(conn, 'pg', fn), names),
      ),
    ping: () => pingWith(() => pool.query('select 1')),
    close() {
      closing ??= pool.end();
      return closing;
    },
  };
  registerInternals(handle, {
    withConnection: (fn) => withPoolClient(pool, logger, fn),
    serialize: createKeyedSerializer(),
  });
  return handle;
}

/** SQLSTATE classes and codes that say the server is gone, not that the statement is wrong. */
const UNREACHABLE_SQLSTATE = /^(08|57P0[1-3])/;
/** Socket errors of a connection that could not be made or broke. */
const UNREACHABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres's own words for a connection that broke or never came (pg-pool, pg/lib/client.js). */
const UNREACHABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly)/;

/**
 * Whether a failed query failed because PostgreSQL could not be reached (down, restarting,
 * the network cut), as opposed to the statement being refused (a constraint, a syntax error).
 */
function isDatabaseUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_SQLSTATE.test(code) || UNREACHABLE_ERRNO.has(code)))
    return true;
  return UNREACHABLE_MESSAGE.test(err.message);
}

/**
 * A query or transaction that failed for want of the database throws `unavailable` (503 with
 * Retry-After at the gateway, a retry for a durable consumer) instead of an internal error:
 * the request was fine and may be sent again. The driver's error stays as `cause` for logs.
 */
async function unavailableWhenUnreachable<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (!isDatabaseUnreachable(err)) throw err;
    const unavailable = new ServiceError('unavailable', 'Service temporarily unavailable. Please try again.');
    unavailable.cause = err;
    throw unavailable;
  }
}

async function pingWith(probe: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), PING_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([probe().then(() => true as const), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

type TypeId = Parameters<typeof pg.types.getTypeParser>[0];
const INT8 = pg.types.builtins.INT8;
const INTERVAL = pg.types.builtins.INTERVAL;
/** `_int8`: array types are not among pg's builtins constants. */
const INT8_ARRAY = 1016 as TypeId;
const parseTextArray = pg.types.getTypeParser(INT8_ARRAY, 'text') as (
  value: string,
) => NestedArray<string | null>;

/**
 * Raw `query()` rows should look the same on both drivers, because services run on both
 * and their tests run in both modes. node-postgres returns int8 (every `count(*)`) as a
 * string and intervals as objects; PGlite returns int8 as a number when it fits exactly
 * (a bigint otherwise) and intervals as text. This makes node-postgres do what PGlite does.
 */
const pgliteCompatibleParser = ((oid: TypeId, format?: 'text' | 'binary') => {
  if (format === undefined || format === 'text') {
    if (oid === INT8) return parseInt8;
    if (oid === INT8_ARRAY) return (value: string) => mapNested(parseTextArray(value), parseInt8);
    if (oid === INTERVAL) return (value: string) => value;
  }
  return pg.types.getTypeParser(oid, format);
}) as typeof pg.types.getTypeParser;

function parseInt8(value: string | null): number | bigint | null {
  if (value === null) return null;
  const big = BigInt(value);
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

type NestedArray<T> = (T | NestedArray<T>)[];

/** Multi-dimensional arrays arrive as nested arrays. */
function mapNested<T, U>(items: NestedArray<T>, fn: (item: T) => U): NestedArray<U> {
  return items.map((item) => (Array.isArray(item) ? mapNested(item, fn) : fn(item)));
}

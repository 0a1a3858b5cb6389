import type { PGlite } from '@electric-sql/pglite';
import type { Pool, PoolClient } from 'pg';
import type { Logger } from '../logger.ts';
import type { StatementNames } from './prepared.ts';
import type { DatabaseHandle } from './types.ts';

/**
 * What `migrate` needs beyond the public DatabaseHandle: one connection held across many
 * statements (a session-level advisory lock belongs to a connection), and transactions on
 * that connection. Kept out of the public interface so services cannot hold connections.
 */
export interface Connection {
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Commits when `fn` resolves, rolls back and rethrows when it rejects. */
  transaction<T>(fn: (tx: TxRunner) => Promise<T>): Promise<T>;
}

export interface TxRunner {
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs a script of several statements (simple query protocol, no parameters). */
  exec(sql: string): Promise<void>;
}

export interface HandleInternals {
  withConnection<T>(fn: (conn: Connection) => Promise<T>): Promise<T>;
  /** Runs `fn` after every earlier call with the same key on this handle has settled. */
  serialize<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

const registry = new WeakMap<DatabaseHandle, HandleInternals>();

export function registerInternals(handle: DatabaseHandle, internals: HandleInternals): void {
  registry.set(handle, internals);
}

export function internalsOf(handle: DatabaseHandle): HandleInternals {
  const internals = registry.get(handle);
  if (!internals) throw new Error('This DatabaseHandle was not created by openDatabase()');
  return internals;
}

/** A promise chain per key: cheap, and a rejected call does not block the next one. */
export function createKeyedSerializer(): HandleInternals['serialize'] {
  const tails = new Map<string, Promise<unknown>>();
  return async <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    try {
      return await run;
    } finally {
      // Drop the entry when nobody queued behind us, so the map does not grow per key forever.
      if (tails.get(key) === tail) tails.delete(key);
    }
  };
}

/**
 * PGlite has one connection, shared by every service of the process. Its `transaction()`
 * holds that connection exclusively, so statements of other services never land inside a
 * migration's transaction (a plain `BEGIN` through `query()` would let them in).
 */
export function pgliteConnection(pglite: PGlite): Connection {
  return {
    async query(sql, params) {
      return (await pglite.query<Record<string, unknown>>(sql, params)).rows;
    },
    transaction(fn) {
      return pglite.transaction((tx) =>
        fn({
          async query(sql, params) {
            return (await tx.query<Record<string, unknown>>(sql, params)).rows;
          },
          async exec(sql) {
            await tx.exec(sql);
          },
        }),
      );
    },
  };
}

/**
 * Checks a client out of the pool for the duration of `fn`. A client whose connection broke
 * (an 'error' event, or a failed ROLLBACK) is destroyed on release instead of going back to
 * the pool, where the next caller would inherit a dead or mid-transaction connection.
 */
export async function withPoolClient<T>(
  pool: Pool,
  logger: Logger,
  fn: (conn: Connection) => Promise<T>,
  /** Prepares parameterised statements under these names (transactions; not migrations' DDL). */
  names?: StatementNames,
): Promise<T> {
  const client: PoolClient = await pool.connect();
  let broken: Error | undefined;
  // A checked-out client emits 'error' when its connection drops between queries; without
  // a listener that event would be thrown as an uncaught exception and end the process.
  const onError = (err: Error): void => {
    broken = err;
    logger.warn({ err }, 'PostgreSQL connection failed while checked out');
  };
  client.on('error', onError);

  const run = async (sql: string, params?: unknown[]): Promise<Record<string, unknown>[]> =>
    names
      ? names.run(client, sql, params, false)
      : (await client.query<Record<string, unknown>>(sql, params)).rows;

  const conn: Connection = {
    query: run,
    async transaction(txFn) {
      await client.query('BEGIN');
      try {
        const result = await txFn({
          query: run,
          async exec(sql) {
            // Without parameters node-postgres uses the simple query protocol, which accepts
            // a script of several statements.
            await client.query(sql);
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackErr) {
          broken ??= rollbackErr as Error;
        }
        throw err;
      }
    },
  };

  try {
    return await fn(conn);
  } finally {
    client.off('error', onError);
    client.release(broken ?? false);
  }
}

import type { Logger } from '../logger.ts';

/** What runs parameterised SQL: the handle itself, or one transaction of it. */
export interface Queryable {
  /** Runs SQL with $1-style parameters (never interpolate values) and returns the rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
}

export interface DatabaseHandle extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * Runs `fn` in one transaction on one connection: commits when it resolves, rolls back and
   * rethrows when it rejects. Work that must happen before the commit (publishing an event
   * whose failure should undo the write) goes inside `fn`.
   */
  transaction<R>(fn: (tx: Queryable) => Promise<R>): Promise<R>;
  /** True when a trivial query answers (readiness). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres://… ; when absent, PGlite in `dataDir`. */
  url?: string;
  /** PGlite directory; `memory://` for a throwaway database. */
  dataDir?: string;
  /** node-postgres pool size. Default 10. */
  poolSize?: number;
  /** Where connection failures outside a query (idle pool clients) are reported. */
  logger?: Logger;
}

export interface MigrateOptions {
  /** The PostgreSQL schema the service owns (created when missing). */
  schema: string;
  /** Folder of committed `NNNN_name.sql` files, applied in name order, each once. */
  migrationsDir: string;
  /** Reports each applied file and applied files no longer on disk. */
  logger?: Logger;
  /**
   * Longest wait for another process's migration of the same schema (its advisory lock), and
   * for a table lock inside a migration (PostgreSQL's lock_timeout); past it the call fails
   * naming the schema instead of hanging. Default 60 s.
   */
  lockTimeoutMs?: number;
}

export interface MigrateResult {
  /** Files applied by this call, in the order they ran (empty when already up to date). */
  applied: string[];
}

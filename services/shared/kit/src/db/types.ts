import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';

/** A drizzle database that is either PGlite (embedded) or node-postgres (cluster). */
export type Db = PgDatabase<PgQueryResultHKT, Record<string, never>>;

export interface DatabaseHandle {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /** Runs raw SQL (with $1-style parameters) and returns the rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
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
}

export interface MigrateOptions {
  /** The PostgreSQL schema the service owns (created when missing). */
  schema: string;
  /** Folder of committed `NNNN_name.sql` files, applied in name order, each once. */
  migrationsDir: string;
}

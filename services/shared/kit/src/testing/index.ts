import { randomBytes } from 'node:crypto';
import { createBus } from '../bus/index.ts';
import type { Bus } from '../bus/types.ts';
import { migrate, openDatabase } from '../db/index.ts';
import type { DatabaseHandle } from '../db/types.ts';

/** What a service's unit tests need: its schema migrated in a throwaway database, and a bus. */
export interface ServiceTestbed {
  readonly db: DatabaseHandle;
  readonly bus: Bus;
  readonly schema: string;
  /** Closes the bus and the database; call it in `afterAll` (PGlite keeps the process alive). */
  close(): Promise<void>;
}

/**
 * PGlite in memory with `migrationsDir` applied to `schema`, and an in-process bus under a
 * fresh prefix: handlers run against the same SQL and bus semantics as in embedded mode,
 * without booting the other services.
 *
 * With `url` (a PostgreSQL server) the schema is a throwaway one named after `schema`, dropped
 * on close: for what only a server shows, such as two connections racing for a row lock
 * (PGlite has one connection, so its statements never overlap).
 */
export async function openServiceTestbed(opts: {
  schema: string;
  migrationsDir: string;
  url?: string;
}): Promise<ServiceTestbed> {
  const db = await openDatabase(opts.url ? { url: opts.url, poolSize: 4 } : { dataDir: 'memory://' });
  const schema = opts.url ? `${opts.schema}_t${randomBytes(4).toString('hex')}` : opts.schema;
  const dropSchema = async (): Promise<void> => {
    if (opts.url) await db.query(`drop schema if exists "${schema}" cascade`);
  };
  try {
    await migrate(db, { schema, migrationsDir: opts.migrationsDir });
  } catch (err) {
    await dropSchema().catch(() => {});
    await db.close();
    throw err;
  }
  const bus = await createBus({ prefix: `t${randomBytes(4).toString('hex')}`, name: `${opts.schema}-test` });
  return {
    db,
    bus,
    schema,
    async close() {
      await bus.close();
      await dropSchema().finally(() => db.close());
    },
  };
}

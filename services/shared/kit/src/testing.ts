import { randomBytes } from 'node:crypto';
import { createBus } from './bus/index.ts';
import type { Bus } from './bus/types.ts';
import { migrate, openDatabase } from './db/index.ts';
import type { DatabaseHandle } from './db/types.ts';

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
 */
export async function openServiceTestbed(opts: {
  schema: string;
  migrationsDir: string;
}): Promise<ServiceTestbed> {
  const db = await openDatabase({ dataDir: 'memory://' });
  try {
    await migrate(db, { schema: opts.schema, migrationsDir: opts.migrationsDir });
  } catch (err) {
    await db.close();
    throw err;
  }
  const bus = await createBus({ prefix: `t${randomBytes(4).toString('hex')}`, name: `${opts.schema}-test` });
  return {
    db,
    bus,
    schema: opts.schema,
    async close() {
      await bus.close();
      await db.close();
    },
  };
}

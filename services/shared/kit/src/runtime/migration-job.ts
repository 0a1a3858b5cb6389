import { Type, type TObject } from '@sinclair/typebox';
import { ConfigError, Env, loadConfig } from '../config.ts';
import { migrate, openDatabase } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import { schemaFor, type ServiceDefinition } from './service.ts';

const MigrationJobConfigSchema = Type.Object({ DATABASE_URL: Env.url() });

/**
 * MIGRATIONS=job: the release step of the Helm chart's pre-install/pre-upgrade hook Job. Applies
 * the service's committed migrations to its schema (under the schema's lock, waiting at most
 * `lockTimeoutMs` for it and for table locks) and answers the exit code: 0 when the schema is
 * up to date, 78 for a bad DATABASE_URL, 1 for a migration that failed (rolled back, its error
 * logged with the file's name), so `helm upgrade` stops before any pod of the new release
 * starts. It needs only DATABASE_URL: no bus, no Redis, none of the service's own settings.
 */
export async function runMigrationJob<C extends TObject>(
  def: ServiceDefinition<C>,
  lockTimeoutMs: number,
  log: Logger,
): Promise<number> {
  let url: string;
  try {
    url = loadConfig(MigrationJobConfigSchema).DATABASE_URL;
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    log.fatal({ problems: err.problems }, err.message);
    return 78;
  }
  const schema = schemaFor(def.name);
  if (!def.migrationsDir) {
    log.info({ schema }, 'this service has no migrations: nothing to do');
    return 0;
  }
  let db;
  try {
    db = await openDatabase({ url, dataDir: '', logger: log.child({ component: 'db' }) });
    const { applied } = await migrate(db, {
      schema,
      migrationsDir: def.migrationsDir,
      lockTimeoutMs,
      logger: log,
    });
    log.info({ schema, applied }, applied.length ? 'migrations applied' : 'schema already up to date');
    return 0;
  } catch (err) {
    log.fatal({ schema, err }, `migration of schema "${schema}" failed: ${(err as Error).message}`);
    return 1;
  } finally {
    await db?.close().catch(() => {});
  }
}

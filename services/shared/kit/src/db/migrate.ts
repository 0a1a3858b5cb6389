import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { internalsOf } from './connection.ts';
import type { DatabaseHandle, MigrateOptions, MigrateResult } from './types.ts';

/**
 * Plain lowercase identifiers only: the name is spliced into DDL (quoted, but still), and
 * hand-written SQL and psql sessions should never need quotes to reach a service's tables.
 */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

/**
 * Brings `schema` up to date with the `*.sql` files of `migrationsDir`: creates the schema
 * and its `schema_migrations` table when missing, then applies every file not applied yet,
 * in name order, each in its own transaction with `search_path` set to the schema (so a
 * file creates unqualified tables in its service's schema) and recorded in the same
 * transaction (a failed file leaves neither its changes nor its record).
 *
 * Throws before applying anything when an applied file's content changed: the database no
 * longer matches what the code expects, and silently continuing would hide that.
 *
 * Replicas starting together serialise on a PostgreSQL advisory lock keyed by the schema,
 * held on one connection for the whole run; the second one finds everything applied. The
 * wait for that lock, and for table locks inside a file (`lock_timeout`), ends after
 * `lockTimeoutMs` with an error naming the schema: a stuck migration elsewhere fails this
 * one clearly rather than hanging until a probe or a deadline kills it.
 * Files must not contain their own BEGIN/COMMIT, nor statements that refuse to run inside
 * a transaction block (CREATE INDEX CONCURRENTLY).
 */
export async function migrate(handle: DatabaseHandle, opts: MigrateOptions): Promise<MigrateResult> {
  const { schema, migrationsDir, logger } = opts;
  const lockTimeoutMs = opts.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  checkSchemaName(schema);
  const files = await readMigrations(migrationsDir);
  const internals = internalsOf(handle);
  const ident = `"${schema}"`;
  const lockName = `chronicler.migrate.${schema}`;

  // Advisory locks are re-entrant within a session, and PGlite has a single session for the
  // whole process: two migrate() calls there would both "get" the lock. Serialising them in
  // process covers that case (and costs nothing for node-postgres, where the lock decides).
  return internals.serialize(`migrate:${schema}`, () =>
    internals.withConnection(async (conn) => {
      await acquireLock(conn, schema, lockName, lockTimeoutMs);
      try {
        // Checked before creating: CREATE SCHEMA IF NOT EXISTS still needs the CREATE
        // privilege on the database, which a service's role may lack once its schema exists.
        const existing = await conn.query('select 1 from pg_namespace where nspname = $1', [schema]);
        if (existing.length === 0) await conn.query(`create schema if not exists ${ident}`);
        await conn.query(
          `create table if not exists ${ident}.schema_migrations (
             name text primary key,
             checksum text not null,
             applied_at timestamptz not null default now()
           )`,
        );

        const rows = await conn.query(`select name, checksum from ${ident}.schema_migrations`);
        const appliedChecksums = new Map(rows.map((row) => [String(row.name), String(row.checksum)]));

        const changed = files.filter(
          (f) => appliedChecksums.has(f.name) && appliedChecksums.get(f.name) !== f.checksum,
        );
        if (changed.length > 0) {
          throw new Error(
            `Refusing to migrate schema "${schema}": applied migration(s) changed since they ran: ` +
              `${changed.map((f) => f.name).join(', ')}. Applied migrations are immutable; restore the ` +
              `file and add a new migration for the change.`,
          );
        }
        const onDisk = new Set(files.map((f) => f.name));
        const missing = [...appliedChecksums.keys()].filter((name) => !onDisk.has(name));
        if (missing.length > 0) {
          // Expected while rolling back to an older release, so it is not fatal.
          logger?.warn(
            { schema, migrations: missing },
            'applied migrations are missing from the migrations folder',
          );
        }

        const applied: string[] = [];
        for (const file of files) {
          if (appliedChecksums.has(file.name)) continue;
          const started = performance.now();
          try {
            await conn.transaction(async (tx) => {
              // SET LOCAL ends with the transaction, so the shared PGlite session (and a
              // pooled node-postgres client) goes back to its default search_path.
              await tx.query(`set local search_path to ${ident}`);
              await tx.query(`set local lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`);
              await tx.exec(file.sql);
              await tx.query(`insert into ${ident}.schema_migrations (name, checksum) values ($1, $2)`, [
                file.name,
                file.checksum,
              ]);
            });
          } catch (err) {
            throw new Error(
              `Migration ${file.name} failed in schema "${schema}" and was rolled back: ${(err as Error).message}`,
              { cause: err },
            );
          }
          applied.push(file.name);
          logger?.info(
            { schema, migration: file.name, ms: Math.round(performance.now() - started) },
            'applied migration',
          );
        }
        return { applied };
      } finally {
        try {
          await conn.query('select pg_advisory_unlock(hashtext($1))', [lockName]);
        } catch {
          // Only fails when the connection is gone, and the server drops a dead session's
          // locks by itself; throwing here would hide the error that got us here.
        }
      }
    }),
  );
}

const DEFAULT_LOCK_TIMEOUT_MS = 60_000;
const LOCK_POLL_MS = 250;

type Conn = Parameters<Parameters<ReturnType<typeof internalsOf>['withConnection']>[0]>[0];

function checkSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) {
    throw new Error(
      `Invalid schema name ${JSON.stringify(schema)}: use lowercase letters, digits and underscores (e.g. admin_stats), at most 63 characters`,
    );
  }
}

/** Takes the schema's advisory lock, trying until `timeoutMs` has passed. */
async function acquireLock(conn: Conn, schema: string, lockName: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await conn.query('select pg_try_advisory_lock(hashtext($1)) as locked', [lockName]);
    if (row?.locked === true) return;
    if (Date.now() >= deadline) {
      throw new Error(
        `Schema "${schema}" is being migrated by another process: its lock (${lockName}) was not free ` +
          `within ${Math.round(timeoutMs / 1000)} s. Look for a stuck migration in pg_stat_activity, ` +
          `or raise MIGRATION_LOCK_TIMEOUT_MS for a long one.`,
      );
    }
    await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
}

/**
 * The committed migrations of `migrationsDir` that `schema` has not applied yet (all of them
 * when the schema does not exist), in name order. Reads only: a process that must not migrate
 * (MIGRATIONS=wait) asks this until the release's migration Job has run.
 */
export async function pendingMigrations(
  handle: DatabaseHandle,
  opts: Pick<MigrateOptions, 'schema' | 'migrationsDir'>,
): Promise<string[]> {
  checkSchemaName(opts.schema);
  const files = await readMigrations(opts.migrationsDir);
  const table = await handle.query<{ name: string | null }>(`select to_regclass($1)::text as name`, [
    `"${opts.schema}".schema_migrations`,
  ]);
  if (!table[0]?.name) return files.map((f) => f.name);
  const rows = await handle.query<{ name: string }>(`select name from "${opts.schema}".schema_migrations`);
  const applied = new Set(rows.map((r) => r.name));
  return files.filter((f) => !applied.has(f.name)).map((f) => f.name);
}

async function readMigrations(dir: string): Promise<MigrationFile[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new Error(`Cannot read migrations folder ${dir}: ${(err as Error).message}`, { cause: err });
  }
  // Code-unit order, not locale order: the sequence must not depend on the machine's locale.
  const names = entries
    .filter((e) => e.isFile() && e.name.endsWith('.sql'))
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(join(dir, name), 'utf8');
      return { name, sql, checksum: checksumOf(sql) };
    }),
  );
}

/** Line endings are normalised so a checkout with CRLF conversion is not a "changed" file. */
function checksumOf(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

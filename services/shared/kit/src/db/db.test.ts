import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyedSerializer } from './connection.ts';
import { migrate, openDatabase, pendingMigrations } from './index.ts';
import type { DatabaseHandle } from './types.ts';

const DATABASE_URL = process.env.DATABASE_URL;

/** A database the suite runs against, and how to open handles on it. */
interface Target {
  kind: 'pglite' | 'postgres';
  setup(): Promise<{ open(): Promise<DatabaseHandle>; teardown(): Promise<void> }>;
  /** A closed handle can be reopened on the same data. */
  reopens: boolean;
  /** Several handles (separate pools) can be open on the same data at once. */
  multipleHandles: boolean;
}

const tempDirs: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const uniqueSchema = (): string => `svc_${randomBytes(5).toString('hex')}`;

async function migrationsDir(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('chronicler-migrations-');
  await Promise.all(Object.entries(files).map(([name, content]) => writeFile(join(dir, name), content)));
  return dir;
}

function describeDatabaseContract(label: string, target: Target): void {
  describe(`database on ${label}`, () => {
    let open: () => Promise<DatabaseHandle>;
    let teardown: () => Promise<void>;
    let handle: DatabaseHandle;

    beforeAll(async () => {
      ({ open, teardown } = await target.setup());
      handle = await open();
    });
    afterAll(async () => {
      await handle?.close();
      await teardown?.();
    });

    it(`reports its kind and answers ping`, async () => {
      expect(handle.kind).toBe(target.kind);
      expect(await handle.ping()).toBe(true);
    });

    it('query() binds $n parameters and returns rows', async () => {
      const hostile = `x'); drop table nothing; --`;
      const rows = await handle.query<{ sum: number; echoed: string; n: number }>(
        'select $1::int + $2::int as sum, $3::text as echoed, count(*) as n from generate_series(1, 3)',
        [2, 3, hostile],
      );
      // count(*) is int8: both drivers return it as a number.
      expect(rows).toEqual([{ sum: 5, echoed: hostile, n: 3 }]);
      // The same for int8 arrays, int8 beyond 2^53 (a bigint, not a rounded number), intervals.
      const [mixed] = await handle.query(
        `select array[1, null, 2]::int8[] as ids, '{{1,2},{3,4}}'::int8[] as grid, 9007199254740993::int8 as big, '1 day 02:00:00'::interval as span`,
      );
      expect(mixed).toEqual({
        ids: [1, null, 2],
        grid: [
          [1, 2],
          [3, 4],
        ],
        big: 9007199254740993n,
        span: '1 day 02:00:00',
      });
      await expect(handle.query('select * from no_such_table')).rejects.toThrow(/no_such_table/);
    });

    it('transaction() commits what its function wrote, and rolls all of it back when the function throws', async () => {
      const table = `${uniqueSchema()}_tx`;
      await handle.query(`create table ${table} (id int primary key, label text not null)`);
      try {
        const answer = await handle.transaction(async (tx) => {
          await tx.query(`insert into ${table} values ($1, $2)`, [1, `it's kept`]);
          return (await tx.query<{ n: number }>(`select count(*) as n from ${table}`))[0]!.n;
        });
        expect(answer).toBe(1);
        await expect(
          handle.transaction(async (tx) => {
            await tx.query(`insert into ${table} values ($1, $2)`, [2, 'written, then undone']);
            throw new Error('the event could not be published');
          }),
        ).rejects.toThrow('the event could not be published');
        expect(await handle.query(`select id, label from ${table} order by id`)).toEqual([
          { id: 1, label: `it's kept` },
        ]);
      } finally {
        await handle.query(`drop table ${table}`);
      }
    });

    it('applies migrations in name order, each once; a second migrate is a no-op', async () => {
      const schema = uniqueSchema();
      // 0010 depends on 0002 (which sorts before it by name, not by length or write order).
      const dir = await migrationsDir({
        '0010_add_title.sql': 'alter table items add column title text;',
        '0002_items.sql': 'create table items (id int primary key);\ncreate index items_id on items (id);',
        'README.md': 'not a migration',
      });

      const first = await migrate(handle, { schema, migrationsDir: dir });
      expect(first.applied).toEqual(['0002_items.sql', '0010_add_title.sql']);
      const recorded = await handle.query<{ name: string; checksum: string }>(
        `select name, checksum from ${schema}.schema_migrations order by applied_at, name`,
      );
      expect(recorded.map((r) => r.name)).toEqual(['0002_items.sql', '0010_add_title.sql']);
      expect(recorded.every((r) => /^[0-9a-f]{64}$/.test(r.checksum))).toBe(true);

      const second = await migrate(handle, { schema, migrationsDir: dir });
      expect(second.applied).toEqual([]);
      expect(
        await handle.query(
          `select name, checksum from ${schema}.schema_migrations order by applied_at, name`,
        ),
      ).toEqual(recorded);

      // A file added later is applied on the next run, alone.
      await writeFile(join(dir, '0011_more.sql'), 'alter table items add column body text;');
      expect((await migrate(handle, { schema, migrationsDir: dir })).applied).toEqual(['0011_more.sql']);
      await handle.query(`insert into ${schema}.items (id, title, body) values (1, 't', 'b')`);
    });

    it("creates unqualified tables in the service's schema and leaves search_path as it was", async () => {
      const schema = uniqueSchema();
      const dir = await migrationsDir({ '0001_notes.sql': 'create table notes (id int);' });
      await migrate(handle, { schema, migrationsDir: dir });

      const tables = await handle.query<{ table_schema: string }>(
        `select table_schema from information_schema.tables where table_name = 'notes' and table_schema in ($1, 'public')`,
        [schema],
      );
      expect(tables).toEqual([{ table_schema: schema }]);
      const [path] = await handle.query<{ search_path: string }>('show search_path');
      expect(path?.search_path).not.toContain(schema);
    });

    it('refuses to migrate when an applied migration changed, before applying anything', async () => {
      const schema = uniqueSchema();
      const dir = await migrationsDir({ '0001_a.sql': 'create table a (id int);' });
      await migrate(handle, { schema, migrationsDir: dir });

      await writeFile(join(dir, '0001_a.sql'), 'create table a (id bigint);');
      await writeFile(join(dir, '0002_b.sql'), 'create table b (id int);');
      await expect(migrate(handle, { schema, migrationsDir: dir })).rejects.toThrow(
        /applied migration\(s\) changed since they ran: 0001_a\.sql/,
      );
      const [b] = await handle.query<{ reg: string | null }>('select to_regclass($1)::text as reg', [
        `${schema}.b`,
      ]);
      expect(b?.reg).toBeNull();
    });

    it('treats a CRLF checkout of an applied file as unchanged', async () => {
      const schema = uniqueSchema();
      const dir = await migrationsDir({ '0001_a.sql': 'create table a (id int);\n-- note\n' });
      await migrate(handle, { schema, migrationsDir: dir });
      await writeFile(join(dir, '0001_a.sql'), 'create table a (id int);\r\n-- note\r\n');
      expect((await migrate(handle, { schema, migrationsDir: dir })).applied).toEqual([]);
    });

    it('lists the committed migrations a schema has not applied yet, all of them for a missing schema', async () => {
      const schema = uniqueSchema();
      const dir = await migrationsDir({ '0001_a.sql': 'create table a (id int);' });
      expect(await pendingMigrations(handle, { schema, migrationsDir: dir })).toEqual(['0001_a.sql']);
      await migrate(handle, { schema, migrationsDir: dir });
      expect(await pendingMigrations(handle, { schema, migrationsDir: dir })).toEqual([]);
      await writeFile(join(dir, '0002_b.sql'), 'create table b (id int);');
      expect(await pendingMigrations(handle, { schema, migrationsDir: dir })).toEqual(['0002_b.sql']);
    });

    it.runIf(target.multipleHandles)(
      'gives up on a schema whose migration lock another process holds past lockTimeoutMs, naming the schema',
      async () => {
        const schema = uniqueSchema();
        const dir = await migrationsDir({ '0001_a.sql': 'create table a (id int);' });
        // Another process's pool: the lock stays with its connection until the pool is closed.
        const holder = await open();
        try {
          await holder.query('select pg_advisory_lock(hashtext($1))', [`chronicler.migrate.${schema}`]);
          await expect(migrate(handle, { schema, migrationsDir: dir, lockTimeoutMs: 1000 })).rejects.toThrow(
            new RegExp(`Schema "${schema}" is being migrated by another process.*MIGRATION_LOCK_TIMEOUT_MS`),
          );
          expect(await pendingMigrations(handle, { schema, migrationsDir: dir })).toEqual(['0001_a.sql']);
        } finally {
          await holder.close();
        }
        // Once the other process is gone, the same call applies the file.
        expect((await migrate(handle, { schema, migrationsDir: dir, lockTimeoutMs: 1000 })).applied).toEqual([
          '0001_a.sql',
        ]);
      },
    );

    it('rolls back a failing migration completely, does not record it, and applies it once fixed', async () => {
      const schema = uniqueSchema();
      const dir = await migrationsDir({
        '0001_ok.sql': 'create table ok (id int);',
        '0002_broken.sql':
          'create table half (id int);\ninsert into ok values (1);\ninsert into missing_table values (1);',
        '0003_after.sql': 'create table after_broken (id int);',
      });

      await expect(migrate(handle, { schema, migrationsDir: dir })).rejects.toThrow(
        /Migration 0002_broken\.sql failed in schema "svc_[0-9a-f]+" and was rolled back: .*missing_table/,
      );
      const recorded = await handle.query<{ name: string }>(
        `select name from ${schema}.schema_migrations order by name`,
      );
      expect(recorded.map((r) => r.name)).toEqual(['0001_ok.sql']);
      const regs = await handle.query<{ half: string | null; after: string | null }>(
        'select to_regclass($1)::text as half, to_regclass($2)::text as after',
        [`${schema}.half`, `${schema}.after_broken`],
      );
      expect(regs).toEqual([{ half: null, after: null }]);
      expect(await handle.query(`select * from ${schema}.ok`)).toEqual([]);

      await writeFile(
        join(dir, '0002_broken.sql'),
        'create table half (id int);\ninsert into ok values (1);',
      );
      expect((await migrate(handle, { schema, migrationsDir: dir })).applied).toEqual([
        '0002_broken.sql',
        '0003_after.sql',
      ]);
      expect(await handle.query(`select id from ${schema}.ok`)).toEqual([{ id: 1 }]);
    });

    it('rejects an unsafe schema name and a missing migrations folder with a clear message', async () => {
      const dir = await migrationsDir({ '0001_a.sql': 'select 1;' });
      await expect(migrate(handle, { schema: 'Bad"Name', migrationsDir: dir })).rejects.toThrow(
        /Invalid schema name/,
      );
      await expect(migrate(handle, { schema: 'admin-stats', migrationsDir: dir })).rejects.toThrow(
        /underscores/,
      );
      await expect(
        migrate(handle, { schema: uniqueSchema(), migrationsDir: join(dir, 'nope') }),
      ).rejects.toThrow(/Cannot read migrations folder .*nope/);
    });

    it(`applies each file exactly once when two migrate calls race${target.multipleHandles ? ' from separate pools' : ' on the shared instance'}`, async () => {
      const schema = uniqueSchema();
      // On PostgreSQL the sleep keeps the first run inside its advisory lock long enough for
      // the second to arrive. On PGlite both calls share one session, where that lock is
      // re-entrant; migrate() serialises them in process instead.
      const sleep = target.kind === 'postgres' ? 'select pg_sleep(0.3);\n' : '';
      const names = ['0001_a.sql', '0002_b.sql'];
      const dir = await migrationsDir(
        Object.fromEntries(names.map((name, i) => [name, `${sleep}create table t${i} (id int);`])),
      );
      const other = target.multipleHandles ? await open() : handle;
      try {
        const results = await Promise.all([
          migrate(handle, { schema, migrationsDir: dir }),
          migrate(other, { schema, migrationsDir: dir }),
        ]);
        expect(results.flatMap((r) => r.applied).sort()).toEqual(names);
        const rows = await handle.query<{ name: string; n: number }>(
          `select name, count(*) as n from ${schema}.schema_migrations group by name order by name`,
        );
        expect(rows).toEqual(names.map((name) => ({ name, n: 1 })));
      } finally {
        if (other !== handle) await other.close();
      }
    });

    if (target.reopens) {
      it('keeps data and applied migrations across close and reopen', async () => {
        const schema = uniqueSchema();
        const dir = await migrationsDir({
          '0001_kept.sql': 'create table kept (id int primary key, body text);',
        });
        await migrate(handle, { schema, migrationsDir: dir });
        await handle.query(`insert into ${schema}.kept values ($1, $2)`, [7, 'still here']);

        await handle.close();
        await handle.close(); // closing twice is harmless
        expect(await handle.ping()).toBe(false);

        handle = await open();
        expect(await handle.query(`select id, body from ${schema}.kept`)).toEqual([
          { id: 7, body: 'still here' },
        ]);
        expect((await migrate(handle, { schema, migrationsDir: dir })).applied).toEqual([]);
      });
    }
  });
}

describeDatabaseContract('PGlite (memory://)', {
  kind: 'pglite',
  reopens: false,
  multipleHandles: false,
  async setup() {
    return { open: () => openDatabase({ dataDir: 'memory://' }), teardown: async () => {} };
  },
});

describeDatabaseContract('PGlite (on disk)', {
  kind: 'pglite',
  reopens: true,
  multipleHandles: false,
  async setup() {
    // A nested path that does not exist yet: openDatabase creates it.
    const dataDir = join(await tempDir('chronicler-pglite-'), 'nested', 'pglite');
    return {
      async open() {
        const handle = await openDatabase({ dataDir });
        expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
        return handle;
      },
      teardown: async () => {},
    };
  },
});

/**
 * A fresh database per run (dropped afterwards), so concurrent runs and leftovers of a
 * crashed run never meet.
 */
async function createScratchDatabase(baseUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `chronicler_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

if (DATABASE_URL) {
  describeDatabaseContract('PostgreSQL', {
    kind: 'postgres',
    reopens: true,
    multipleHandles: true,
    async setup() {
      const scratch = await createScratchDatabase(DATABASE_URL);
      return { open: () => openDatabase({ url: scratch.url, poolSize: 4 }), teardown: () => scratch.drop() };
    },
  });

  describe('PostgreSQL pool', () => {
    let scratch: { url: string; drop(): Promise<void> };
    beforeAll(async () => {
      scratch = await createScratchDatabase(DATABASE_URL);
    });
    afterAll(async () => {
      await scratch?.drop();
    });

    it('survives an idle connection being killed: logs it and serves the next query', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
      const handle = await openDatabase({ url: scratch.url, poolSize: 1, logger });
      try {
        const [own] = await handle.query<{ pid: number }>('select pg_backend_pid() as pid');
        const admin = new pg.Client({ connectionString: DATABASE_URL });
        await admin.connect();
        try {
          await admin.query('select pg_terminate_backend($1)', [own?.pid]);
        } finally {
          await admin.end();
        }
        // The pool reports the dead idle client through 'error'; without a listener the
        // process would have crashed before this wait ends.
        const deadline = Date.now() + 5_000;
        while (!lines.some((l) => l.includes('idle PostgreSQL connection failed')) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20));
        }
        expect(lines.some((l) => l.includes('idle PostgreSQL connection failed'))).toBe(true);
        const [next] = await handle.query<{ pid: number }>('select pg_backend_pid() as pid');
        expect(next?.pid).not.toBe(own?.pid);
        expect(await handle.ping()).toBe(true);
      } finally {
        await handle.close();
      }
    });

    /** The statements the pool's one connection has prepared: the view is per connection. */
    const prepared = async (handle: DatabaseHandle): Promise<string[]> =>
      (
        await handle.query<{ statement: string }>(
          'select statement from pg_prepared_statements order by prepare_time',
        )
      ).map((r) => r.statement);

    it('prepares a statement with parameters once per connection and runs it again by name', async () => {
      const handle = await openDatabase({ url: scratch.url, poolSize: 1 });
      try {
        const sql = 'select $1::int + 1 as n';
        for (const n of [1, 2, 3]) expect(await handle.query(sql, [n])).toEqual([{ n: n + 1 }]);
        await handle.transaction(async (tx) => {
          expect(await tx.query(sql, [10])).toEqual([{ n: 11 }]);
        });
        // Prepared once, for the pool and its transactions alike; without parameters nothing is.
        expect(await prepared(handle)).toEqual([sql]);
      } finally {
        await handle.close();
      }
    });

    it('prepares a statement again when a migration changed the columns it reads', async () => {
      const handle = await openDatabase({ url: scratch.url, poolSize: 1 });
      try {
        await handle.query('create table stale_plan (a int)');
        await handle.query('insert into stale_plan values (1)');
        const sql = 'select * from stale_plan where a = $1';
        expect(await handle.query(sql, [1])).toEqual([{ a: 1 }]);
        // PostgreSQL refuses the prepared statement now ("cached plan must not change result type").
        await handle.query('alter table stale_plan add column b text');
        expect(await handle.query(sql, [1])).toEqual([{ a: 1, b: null }]);
        // In a transaction the refusal aborts it: the caller sees it once, and its retry passes.
        const inTx = 'select * from stale_plan where a = $1 and true';
        await handle.transaction((tx) => tx.query(inTx, [1]));
        await handle.query('alter table stale_plan add column c text');
        await expect(handle.transaction((tx) => tx.query(inTx, [1]))).rejects.toMatchObject({
          code: '0A000',
        });
        expect(await handle.transaction((tx) => tx.query(inTx, [1]))).toEqual([{ a: 1, b: null, c: null }]);
      } finally {
        await handle.close();
      }
    });
  });
} else {
  console.info('db.test.ts: PostgreSQL variants skipped because DATABASE_URL is not set');
  describe.skip('database on PostgreSQL (skipped: DATABASE_URL is not set)', () => {
    it('runs the database contract against PostgreSQL', () => {});
  });
}

describe('openDatabase', () => {
  it('refuses to guess where the data goes when neither url nor dataDir is given', async () => {
    await expect(openDatabase({})).rejects.toThrow(/needs either `url`.*or `dataDir`/);
  });

  it('answers ping false once closed, and a closed database can be closed again', async () => {
    const handle = await openDatabase({ dataDir: 'memory://' });
    expect(await handle.ping()).toBe(true);
    await handle.close();
    expect(await handle.ping()).toBe(false);
    await expect(handle.close()).resolves.toBeUndefined();
  });

  it('refuses a handle it did not create', async () => {
    const fake = {
      kind: 'pglite',
      db: {},
      query: async () => [],
      ping: async () => true,
      close: async () => {},
    };
    await expect(
      migrate(fake as unknown as DatabaseHandle, { schema: 'x', migrationsDir: await migrationsDir({}) }),
    ).rejects.toThrow(/not created by openDatabase/);
  });
});

describe('createKeyedSerializer', () => {
  it('runs calls with one key one after another, other keys alongside, past a failure', async () => {
    const serialize = createKeyedSerializer();
    const events: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const slow = serialize('a', async () => {
      events.push('a1 start');
      await gate;
      events.push('a1 end');
      throw new Error('a1 failed');
    });
    const next = serialize('a', async () => {
      events.push('a2');
      return 'a2 done';
    });
    const other = serialize('b', async () => {
      events.push('b');
      return 'b done';
    });

    expect(await other).toBe('b done');
    expect(events).toEqual(['a1 start', 'b']);
    open();
    await expect(slow).rejects.toThrow('a1 failed');
    expect(await next).toBe('a2 done');
    expect(events).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
  });
});

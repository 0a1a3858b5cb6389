import { migrate, openDatabase } from '@chronicler/kit';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthStore } from '../db/store.ts';
import { adminGrant, pgliteDir } from './admin-grant.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** An embedded instance's data directory with two local users, closed as a stopped server leaves it. */
let dataDir: string;
let bobId: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-grant-'));
  const db = await openDatabase({ dataDir: pgliteDir({ DATA_DIR: dataDir }) });
  await migrate(db, { schema: 'auth', migrationsDir });
  const store = new AuthStore(db, 'auth');
  bobId = (await store.createLocalUser('bob', 'Bob', 'x'))!.id;
  await store.createLocalUser('carol', 'Carol', 'x');
  await db.close();
}, 60_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function run(args: string[], env: NodeJS.ProcessEnv = { DATA_DIR: dataDir }) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await adminGrant(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function storedAdmin(id: string): Promise<boolean> {
  const db = await openDatabase({ dataDir: pgliteDir({ DATA_DIR: dataDir }) });
  try {
    return (await db.query<{ is_admin: boolean }>('select is_admin from auth.users where id = $1', [id]))[0]!
      .is_admin;
  } finally {
    await db.close();
  }
}

describe('pnpm admin:grant on a stopped embedded instance', () => {
  it('sets and clears the stored flag, naming the user by local name (any case) or id', async () => {
    const granted = await run(['BOB']);
    expect(granted).toMatchObject({ code: 0, err: '' });
    expect(granted.out).toContain(`Bob (${bobId}) is now an admin`);
    expect(await storedAdmin(bobId)).toBe(true);
    const revoked = await run([bobId, '--revoke']);
    expect(revoked.code).toBe(0);
    expect(revoked.out).toContain('is no longer an admin');
    expect(await storedAdmin(bobId)).toBe(false);
  }, 60_000);

  it('says when a revoked user stays admin through ADMIN_LOCAL_USERS', async () => {
    const r = await run(['bob', '--revoke'], { DATA_DIR: dataDir, ADMIN_LOCAL_USERS: 'bob' });
    expect(r.code).toBe(0);
    expect(r.out).toContain('still an admin through');
  }, 60_000);

  it('refuses while the database is open elsewhere, and changes nothing', async () => {
    const running = await openDatabase({ dataDir: pgliteDir({ DATA_DIR: dataDir }) });
    try {
      const r = await run(['bob']);
      expect(r.code).toBe(1);
      expect(r.err).toContain('is in use: Chronicler is running');
      expect(r.err).toContain('ADMIN_LOCAL_USERS=bob');
    } finally {
      await running.close();
    }
    expect(await storedAdmin(bobId)).toBe(false);
  }, 60_000);

  it('answers an unknown user, a missing data directory and a bad command line clearly', async () => {
    const unknown = await run(['dave']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('No user is called or has the id "dave"');
    const nowhere = await run(['bob'], { DATA_DIR: path.join(dataDir, 'nothing-here') });
    expect(nowhere.code).toBe(1);
    expect(nowhere.err).toContain('No Chronicler database in');
    expect((await run([])).code).toBe(2);
    expect((await run(['a', 'b'])).code).toBe(2);
  }, 60_000);
});

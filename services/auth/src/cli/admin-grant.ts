// `pnpm admin:grant <username or user id> [--revoke]`: makes someone admin (or takes it
// back) without editing the database by hand.
//
// - NATS_URL set (a running cluster, or `pnpm start:cluster`): asks the auth service over the
//   bus (svc.auth.set-admin), BUS_PREFIX naming the deployment.
// - Otherwise the embedded instance's database in DATA_DIR (default ./data), written directly
//   while Chronicler is stopped. PGlite is a single-process database: while the embedded
//   system runs it holds the directory (postmaster.pid), and a second writer would corrupt
//   it, so then this refuses and says what to do instead.
//
// The change holds from the gateways' next session check (SESSION_CACHE_TTL_MS, 30 s by
// default), and at the user's next sign-in at the latest.
import { setAdminRpc, type RpcResponse } from '@chronicler/contracts';
import { call, createBus, loadConfig, openDatabase, redactUrl, ServiceError } from '@chronicler/kit';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AuthConfigSchema, resolveSettings, type AuthSettings } from '../config.ts';
import { AuthStore } from '../db/store.ts';
import { setAdmin } from '../handlers/set-admin.ts';

export const USAGE = 'Usage: pnpm admin:grant <username or user id> [--revoke]';

/** Where the CLI writes: stdout for results, stderr for refusals. */
export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

type Result = RpcResponse<typeof setAdminRpc>;

/** Runs the command; answers the exit code (0 done, 1 refused or failed, 2 usage). */
export async function adminGrant(argv: string[], env: NodeJS.ProcessEnv, io: CliOutput): Promise<number> {
  const revoke = argv.includes('--revoke');
  const rest = argv.filter((a) => a !== '--revoke');
  if (rest.length !== 1 || rest[0]!.startsWith('-') || !rest[0]!.trim()) {
    io.err(USAGE);
    return 2;
  }
  const user = rest[0]!.trim();
  try {
    const result = env.NATS_URL
      ? await viaBus(env.NATS_URL, env.BUS_PREFIX || 'chronicler', user, !revoke)
      : await viaDatabase(env, user, !revoke, io);
    if (!result) return 1;
    report(result, revoke, io);
    return 0;
  } catch (err) {
    if (ServiceError.is(err) && err.code === 'unavailable') {
      io.err(
        `No auth service answers on ${redactUrl(env.NATS_URL ?? '')} (BUS_PREFIX=${env.BUS_PREFIX || 'chronicler'}). ` +
          'Is the cluster running, and is this its NATS_URL and BUS_PREFIX?',
      );
    } else {
      io.err(`admin:grant failed: ${redactUrl((err as Error).message)}`);
    }
    return 1;
  }
}

function report(r: Result, revoke: boolean, io: CliOutput): void {
  const who = `${r.username} (${r.id})`;
  if (!revoke) {
    io.out(`${who} is now an admin. It applies within 30 seconds, or at their next sign-in at the latest.`);
  } else if (r.is_admin) {
    io.out(
      `${who} no longer has the stored admin flag, but is still an admin through ` +
        'ADMIN_LOCAL_USERS, ADMIN_DISCORD_IDS or ADMIN_EMAILS: remove them there too.',
    );
  } else {
    io.out(
      `${who} is no longer an admin. It applies within 30 seconds, or at their next sign-in at the latest.`,
    );
  }
}

async function viaBus(natsUrl: string, prefix: string, user: string, admin: boolean): Promise<Result> {
  const bus = await createBus({ natsUrl, prefix, name: 'admin-grant' });
  try {
    return await call(bus, setAdminRpc, { user, admin }, { timeoutMs: 10_000 });
  } finally {
    await bus.close();
  }
}

/** The embedded instance's PGlite directory, as the platform derives it from DATA_DIR. */
export function pgliteDir(env: NodeJS.ProcessEnv): string {
  return path.join(path.resolve(env.DATA_DIR || './data'), 'pglite');
}

async function viaDatabase(
  env: NodeJS.ProcessEnv,
  user: string,
  admin: boolean,
  io: CliOutput,
): Promise<Result | null> {
  let dataDir: string | undefined;
  if (!env.DATABASE_URL) {
    dataDir = pgliteDir(env);
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
      io.err(
        `No Chronicler database in ${dataDir}. Start Chronicler once (pnpm start) and sign in, ` +
          'or set DATA_DIR to the data directory it uses.',
      );
      return null;
    }
    if (existsSync(path.join(dataDir, 'postmaster.pid'))) {
      io.err(
        `The embedded database in ${dataDir} is in use: Chronicler is running, and its database ` +
          'takes one process at a time. Either stop Chronicler and run this again, or add the ' +
          `local username to ADMIN_LOCAL_USERS (e.g. ADMIN_LOCAL_USERS=${user}) and restart it. ` +
          `(If no Chronicler process is running, it stopped abruptly: delete ${path.join(dataDir, 'postmaster.pid')} and retry.)`,
      );
      return null;
    }
  }
  const db = await openDatabase({ url: env.DATABASE_URL, dataDir });
  try {
    const [schema] = await db.query<{ t: string | null }>(`select to_regclass('auth.users')::text as t`);
    if (!schema?.t) {
      io.err('The database has no users yet: start Chronicler once and sign in first.');
      return null;
    }
    return await setAdmin(new AuthStore(db, 'auth'), settingsOf(env))({ user, admin });
  } finally {
    await db.close();
  }
}

/** The configured admin lists, so the answer tells effective rights; none when the config is unreadable. */
function settingsOf(env: NodeJS.ProcessEnv): AuthSettings {
  try {
    return resolveSettings(loadConfig(AuthConfigSchema, env), 'embedded');
  } catch {
    return resolveSettings(loadConfig(AuthConfigSchema, {}), 'embedded');
  }
}

const invokedDirectly =
  process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invokedDirectly) {
  process.exitCode = await adminGrant(process.argv.slice(2), process.env, {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
}

import { startEmbedded, type EmbeddedSystem } from '@chronicler/all-in-one';
import { createLogger } from '@chronicler/kit';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '../support/system.ts';

export interface BenchSystem {
  readonly system: EmbeddedSystem;
  /** Where its data lives, for the printed report. */
  readonly backend: string;
  stop(): Promise<void>;
}

/**
 * The embedded system a benchmark measures: PostgreSQL when DATABASE_URL is set (a throwaway
 * database on that server), else PGlite in a temporary folder; loopback only, quiet logs,
 * local sign-in, and rate limits out of the way of one client making many requests.
 */
export async function startBenchSystem(extraEnv: NodeJS.ProcessEnv = {}): Promise<BenchSystem> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-bench-'));
  const testDb = process.env.DATABASE_URL ? await createTestDatabase(process.env.DATABASE_URL) : undefined;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    DATA_DIR: dataDir,
    PORT: '0',
    OPS_PORT: '0',
    HOST: '127.0.0.1',
    BUS_PREFIX: `bench${randomBytes(3).toString('hex')}`,
    LOG_LEVEL: 'warn',
    AUTH_LOCAL_ENABLED: 'true',
    RATE_LIMIT_IP_MAX: '1000000',
    RATE_LIMIT_USER_MAX: '1000000',
    ...extraEnv,
    ...(testDb ? { DATABASE_URL: testDb.url } : {}),
  };
  const system = await startEmbedded(env, { logger: createLogger(null, { level: 'warn' }) });
  return {
    system,
    backend: testDb ? 'PostgreSQL (DATABASE_URL)' : 'PGlite (embedded)',
    async stop() {
      await system.stop();
      await testDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

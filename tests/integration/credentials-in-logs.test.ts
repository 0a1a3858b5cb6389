import { SERVICE_NAMES } from '@chronicler/contracts';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, nodeEntry, repoRoot, testMode, waitFor } from '../support/system.ts';

// Every service process, as the chart runs it, given a password in every URL it reads (NATS,
// PostgreSQL, Redis, the speech and AI servers) where nothing listens. Operators read the logs
// exactly then; whatever a process writes (its log lines, Node's own reports, a library's
// output) must not hold any of the passwords.
const SECRETS = {
  nats: 'nats-pw-3f9a71',
  pg: 'pg-pw-8c2e44',
  redis: 'redis-pw-51d0b7',
  speech: 'speech-pw-a90c12',
  openai: 'openai-pw-7e6d35',
};

interface Run {
  name: string;
  output: string;
  exitCode: number | null;
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-creds-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function closedUrl(scheme: string, userinfo: string, rest = ''): Promise<string> {
  // A port just freed: nothing listens there.
  return `${scheme}://${userinfo}@127.0.0.1:${await freePort()}${rest}`;
}

async function baseEnv(): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'debug',
    DATA_DIR: dataDir,
    BUS_PREFIX: `creds${process.pid}`,
    AUTH_JWT_SECRET: 'x'.repeat(43),
    NATS_URL: await closedUrl('nats', `chronicler:${SECRETS.nats}`),
    DATABASE_URL: await closedUrl('postgres', `chronicler:${SECRETS.pg}`, '/chronicler'),
    REDIS_URL: await closedUrl('redis', `:${SECRETS.redis}`),
    TRANSCRIPTION_BASE_URL: await closedUrl('http', `whisper:${SECRETS.speech}`, '/v1'),
    OPENAI_BASE_URL: await closedUrl('http', `llm:${SECRETS.openai}`, '/v1'),
    OPENAI_MODEL: 'm',
  };
  delete env.TEST_CHILD_LOGS;
  return env;
}

/**
 * Runs one service process until it exits or, given `until`, until what it wrote matches that
 * (it is then stopped with SIGTERM); answers everything it wrote. What it says first may be
 * anything (that it runs below the default CPU priority, say), so the wait is for the words.
 */
async function runService(name: string, env: NodeJS.ProcessEnv, until?: RegExp): Promise<Run> {
  const child = spawn(process.execPath, nodeEntry(`services/${name}/src/main.ts`), {
    cwd: repoRoot,
    env: { ...env, OPS_PORT: String(await freePort()), PORT: String(await freePort()) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr.on('data', (b: Buffer) => (output += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((c) => (exitCode = c));
  await waitFor(
    async () => exitCode !== undefined || (until !== undefined && until.test(output)),
    90_000,
    100,
  );
  if (exitCode === undefined) {
    // It keeps trying (reconnecting): give its retries a moment to be logged, then stop it.
    await new Promise((r) => setTimeout(r, 1500));
    child.kill('SIGTERM');
  }
  await exited;
  return { name, output, exitCode: exitCode ?? null };
}

function leaks(run: Run): string[] {
  return Object.values(SECRETS).filter((s) => run.output.includes(s));
}

// The first two start each process with addresses where nothing listens, whatever the mode the
// suite runs in: they run once, in the embedded pass. The third needs the cluster's NATS.
const onceForBothModes = it.runIf(testMode === 'embedded');

describe('no credential reaches any output', () => {
  onceForBothModes(
    'every service with NATS down: the NATS URL is named without its password',
    async () => {
      const env = await baseEnv();
      const runs: Run[] = [];
      // Two at a time: each is a Node process with its TypeScript loader. A service that cannot
      // reach the bus does not start: each one's exit is waited for.
      for (let i = 0; i < SERVICE_NAMES.length; i += 2) {
        runs.push(...(await Promise.all(SERVICE_NAMES.slice(i, i + 2).map((n) => runService(n, env)))));
      }
      for (const run of runs) {
        expect(run.exitCode, `${run.name}:\n${run.output}`).toBe(1);
        // It did report what failed, and where: the host stays, the password goes.
        expect(run.output, run.name).toMatch(
          /Cannot connect to NATS at nats:\/\/\[REDACTED\]@127\.0\.0\.1:\d+/,
        );
        expect(leaks(run), `${run.name}:\n${run.output}`).toEqual([]);
      }
    },
    300_000,
  );

  onceForBothModes(
    'a migration Job with PostgreSQL down names no password',
    async () => {
      const run = await runService('transcript', { ...(await baseEnv()), MIGRATIONS: 'job' });
      expect(run.exitCode, run.output).toBe(1);
      expect(run.output).toMatch(/migration of schema \\?"transcript\\?" failed/);
      expect(leaks(run), run.output).toEqual([]);
    },
    120_000,
  );

  // With a NATS that answers (its password ignored by a server without auth), each process gets
  // on to PostgreSQL, Redis and its providers, all unreachable.
  it.runIf(testMode === 'cluster')(
    'every service with NATS up and PostgreSQL, Redis and the providers down',
    async () => {
      const env = await baseEnv();
      const nats = new URL(process.env.NATS_URL!.split(',')[0]!);
      nats.username = 'chronicler';
      nats.password = SECRETS.nats;
      env.NATS_URL = nats.toString();
      const runs: Run[] = [];
      const failing = /ECONNREFUSED|could not start|Redis|PostgreSQL/;
      for (let i = 0; i < SERVICE_NAMES.length; i += 2) {
        runs.push(
          ...(await Promise.all(SERVICE_NAMES.slice(i, i + 2).map((n) => runService(n, env, failing)))),
        );
      }
      for (const run of runs) {
        expect(run.output, run.name).toMatch(failing);
        expect(leaks(run), `${run.name}:\n${run.output}`).toEqual([]);
      }
    },
    400_000,
  );
});

import { SERVICE_NEEDS } from '@chronicler/contracts';
import { Type, type TObject } from '@sinclair/typebox';
import { ConfigError, Env, loadConfig, LogConfigSchema, logLevelOf } from '../config.ts';
import { createLogger, type Logger } from '../logger.ts';
import { defaultOpsHost, OpsConfigSchema, startOpsServer, type OpsServer } from '../ops/server.ts';
import type { ReadinessCheck } from '../ops/routes.ts';
import { startTelemetry, stopTelemetry } from '../ops/telemetry.ts';
import { runMigrationJob } from './migration-job.ts';
import { openPlatform, PlatformConfigSchema, type Platform } from './platform.ts';
import { loadServiceConfig, startService, type RunningService, type ServiceDefinition } from './service.ts';
import { installProcessPolicy } from './process-policy.ts';
import { lowerProcessPriority } from './priority.ts';
import { onShutdownSignal } from './shutdown.ts';

/**
 * How a process treats its schema and its end. MIGRATIONS: `apply` the committed migrations
 * at start (under the schema's lock), `wait` until the release's migration Job has applied
 * them (the chart's pods), or `job`: apply them and exit (the chart's pre-install/pre-upgrade
 * hook Job, which needs only DATABASE_URL).
 */
export const ReleaseConfigSchema = Type.Object({
  MIGRATIONS: Type.Union([Type.Literal('apply'), Type.Literal('wait'), Type.Literal('job')], {
    default: 'apply',
  }),
  /** Longest wait for another process's migration of the schema, and for a table lock in one. */
  MIGRATION_LOCK_TIMEOUT_MS: Type.Integer({ default: 60_000, minimum: 1000 }),
  /**
   * After SIGTERM: how long the process keeps serving with /readyz failing before it stops
   * accepting, so a load balancer that polls readiness moves away first. 0 under Kubernetes,
   * where the chart's preStop delay does this before SIGTERM is sent.
   */
  SHUTDOWN_DELAY_MS: Type.Integer({ default: 0, minimum: 0, maximum: 120_000 }),
  /** Longest the whole stop may take before the process exits anyway (below the pod's grace period). */
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ default: 15_000, minimum: 1000 }),
});

/**
 * A service as its own process (cluster mode). Replicas share state, so the bus and Redis are
 * required here, unlike in the embedded runner, and DATABASE_URL where the service owns a
 * schema (its declaration, charts/chronicler/needs.json); a service without one ignores it.
 */
const StandaloneConfigSchema = Type.Object({
  ...PlatformConfigSchema.properties,
  NATS_URL: Env.url(),
  REDIS_URL: Env.url(),
  ...OpsConfigSchema.properties,
  ...LogConfigSchema.properties,
  ...ReleaseConfigSchema.properties,
  /** The process's CPU priority below the default (Linux nice); the service's own choice when unset. */
  PROCESS_NICE: Type.Optional(Type.Integer({ minimum: 0, maximum: 19 })),
});

function exitOnConfigError(err: unknown, log: Logger): void {
  if (err instanceof ConfigError) {
    log.fatal({ problems: err.problems }, err.message);
    process.exit(78); // EX_CONFIG
  }
}

/**
 * Runs a service: the ops listener first (/healthz answers from the first second, /readyz once
 * the service serves), then the bus, database and Redis, the schema (applied, or waited for),
 * the service. SIGTERM turns /readyz false, waits SHUTDOWN_DELAY_MS, then stops the service
 * (the gateway drains its requests and sockets), the ops listener and the connections.
 */
export async function runStandalone<C extends TObject>(def: ServiceDefinition<C>): Promise<void> {
  const log = createLogger(def.name, { level: logLevelOf(process.env) });
  const release = (() => {
    try {
      return loadConfig(ReleaseConfigSchema);
    } catch (err) {
      exitOnConfigError(err, log);
      throw err;
    }
  })();
  if (release.MIGRATIONS === 'job') {
    process.exit(await runMigrationJob(def, release.MIGRATION_LOCK_TIMEOUT_MS, log));
  }
  let cfg;
  let serviceConfig;
  try {
    cfg = loadConfig(StandaloneConfigSchema);
    if (SERVICE_NEEDS[def.name].schema && !cfg.DATABASE_URL) {
      throw new ConfigError([
        { variable: 'DATABASE_URL', message: `is required: ${def.name} owns a schema` },
      ]);
    }
    serviceConfig = loadServiceConfig(def);
  } catch (err) {
    exitOnConfigError(err, log);
    throw err;
  }
  await startTelemetry(def.name);
  const nice = cfg.PROCESS_NICE ?? def.nice ?? 0;
  if (nice > 0)
    log.info({ nice, threads: lowerProcessPriority(nice) }, 'running below the default CPU priority');

  const checks: ReadinessCheck[] = [];
  let ops: OpsServer;
  try {
    ops = await startOpsServer({
      host: cfg.OPS_HOST ?? defaultOpsHost('cluster'),
      port: cfg.OPS_PORT,
      checks,
      logger: log,
    });
  } catch (err) {
    exitOnConfigError(err, log);
    throw err;
  }

  const starting = new AbortController();
  let platform: Platform | undefined;
  let service: RunningService | undefined;
  onShutdownSignal(
    async () => {
      ops.phase = 'stopping';
      starting.abort();
      if (service && release.SHUTDOWN_DELAY_MS > 0)
        await new Promise((r) => setTimeout(r, release.SHUTDOWN_DELAY_MS));
      await service?.stop();
      await ops.close();
      await platform?.close();
      await stopTelemetry();
    },
    log,
    release.SHUTDOWN_TIMEOUT_MS,
  );

  const migrations = {
    mode: release.MIGRATIONS,
    lockTimeoutMs: release.MIGRATION_LOCK_TIMEOUT_MS,
    signal: starting.signal,
  };
  try {
    platform = await openPlatform(cfg, { name: def.name, logger: log, needs: SERVICE_NEEDS[def.name] });
    checks.push(...platform.readiness);
    service = await startService(def, platform, {
      logger: log,
      config: serviceConfig,
      migrations,
    });
  } catch (err) {
    // Stopped while starting: the shutdown handler exits.
    if (starting.signal.aborted) return;
    // Through the logger, not Node's report of an uncaught error: the line is JSON like every
    // other, and a connection string in the error or its cause loses its password on the way.
    log.fatal({ err }, `${def.name} could not start: ${(err as Error).message}`);
    await platform?.close().catch(() => {});
    await stopTelemetry();
    process.exit(1);
  }
  if (!starting.signal.aborted) ops.phase = 'serving';
  // What nothing caught is logged and counted; a voice failure restarts the voice bot in this
  // process (its recordings handed over and resumed), anything else ends the process.
  installProcessPolicy(log, {
    restartVoice:
      def.name === 'voice-bot'
        ? async () => {
            await service
              ?.stop()
              .catch((err: unknown) => log.warn({ err }, 'not stopped cleanly before a restart'));
            service = await startService(def, platform!, { logger: log, config: serviceConfig, migrations });
          }
        : undefined,
  });
}

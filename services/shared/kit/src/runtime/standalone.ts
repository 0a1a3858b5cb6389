import { Type, type TObject } from '@sinclair/typebox';
import { ConfigError, Env, loadConfig, LogConfigSchema, logLevelOf } from '../config.ts';
import { createLogger } from '../logger.ts';
import { defaultOpsHost, OpsConfigSchema, startOpsServer } from '../ops/server.ts';
import { startTelemetry, stopTelemetry } from '../ops/telemetry.ts';
import { openPlatform, PlatformConfigSchema } from './platform.ts';
import { loadServiceConfig, startService, type ServiceDefinition } from './service.ts';
import { onShutdownSignal } from './shutdown.ts';

/**
 * A service as its own process (cluster mode). Replicas share state, so the bus, the
 * database and Redis are required here, unlike in the embedded runner.
 */
const StandaloneConfigSchema = Type.Object({
  ...PlatformConfigSchema.properties,
  NATS_URL: Env.url(),
  DATABASE_URL: Env.url(),
  REDIS_URL: Env.url(),
  ...OpsConfigSchema.properties,
  ...LogConfigSchema.properties,
});

export async function runStandalone<C extends TObject>(def: ServiceDefinition<C>): Promise<void> {
  const log = createLogger(def.name, { level: logLevelOf(process.env) });
  let cfg;
  let serviceConfig;
  try {
    cfg = loadConfig(StandaloneConfigSchema);
    serviceConfig = loadServiceConfig(def);
  } catch (err) {
    if (err instanceof ConfigError) {
      log.fatal({ problems: err.problems }, err.message);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  await startTelemetry(def.name);
  const platform = await openPlatform(cfg, { name: def.name, logger: log });
  const service = await startService(def, platform, { logger: log, config: serviceConfig });

  const ops = await startOpsServer({
    host: cfg.OPS_HOST ?? defaultOpsHost(platform.mode),
    port: cfg.OPS_PORT,
    checks: platform.readiness,
    logger: log,
  });

  onShutdownSignal(async () => {
    await ops.close();
    await service.stop();
    await platform.close();
    await stopTelemetry();
  }, log);
}

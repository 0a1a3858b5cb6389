import { Type, type TObject } from '@sinclair/typebox';
import Fastify from 'fastify';
import { ConfigError, Env, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { opsRoutes } from '../ops/routes.ts';
import { startTelemetry, stopTelemetry } from '../ops/telemetry.ts';
import { openPlatform, PlatformConfigSchema } from './platform.ts';
import { startService, type ServiceDefinition } from './service.ts';
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
  OPS_PORT: Env.port(9464),
});

export async function runStandalone<C extends TObject>(def: ServiceDefinition<C>): Promise<void> {
  const log = createLogger(def.name);
  let cfg;
  let serviceConfig;
  try {
    cfg = loadConfig(StandaloneConfigSchema);
    serviceConfig = loadConfig(def.config);
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

  const ops = def.servesOps ? undefined : Fastify({ logger: false });
  if (ops) {
    await ops.register(opsRoutes, { checks: platform.readiness });
    await ops.listen({ host: '0.0.0.0', port: cfg.OPS_PORT });
    log.info({ port: cfg.OPS_PORT }, 'ops endpoints listening');
  }

  onShutdownSignal(async () => {
    await ops?.close();
    await service.stop();
    await platform.close();
    await stopTelemetry();
  }, log);
}

import adminStats from '@chronicler/admin-stats';
import auth from '@chronicler/auth';
import chat from '@chronicler/chat';
import gateway from '@chronicler/gateway';
import group from '@chronicler/group';
import {
  ConfigError,
  createLogger,
  defaultOpsHost,
  loadConfig,
  loadServiceConfig,
  LogConfigSchema,
  loadPlatformConfig,
  localSignInEnabled,
  openPlatform,
  OpsConfigSchema,
  startOpsServer,
  startService,
  type ReadinessCheck,
  type Logger,
  type Platform,
  type RunningService,
  type ServiceDefinition,
} from '@chronicler/kit';
import liveFanout from '@chronicler/live-fanout';
import planning from '@chronicler/planning';
import summary from '@chronicler/summary';
import transcript from '@chronicler/transcript';
import voiceBot from '@chronicler/voice-bot';
import type { TObject } from '@sinclair/typebox';

/** Every service, in start order: the gateway last, so it answers only once the rest do. */
export const SERVICES: ServiceDefinition<TObject>[] = [
  auth,
  transcript,
  group,
  chat,
  planning,
  summary,
  liveFanout,
  adminStats,
  voiceBot,
  gateway,
] as ServiceDefinition<TObject>[];

export interface EmbeddedSystem {
  readonly platform: Platform;
  readonly port: number;
  readonly url: string;
  /** The one ops listener of the process (/healthz, /readyz, /metrics for all ten services). */
  readonly opsPort: number;
  /**
   * Stops one service and starts it again on the same platform and configuration, the others
   * serving on (the process policy does this for the voice bot after an uncaught voice error:
   * its recordings are handed over at the stop and resumed at the start, as across a deploy).
   */
  restartService(name: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Runs all ten services in one process on one platform (by default PGlite in DATA_DIR,
 * the in-process bus, memory locks), with one ops listener for the process. Configuration
 * comes from `env`; every invalid variable of every service is reported at once.
 */
export async function startEmbedded(
  env: NodeJS.ProcessEnv = process.env,
  opts: { logger?: Logger } = {},
): Promise<EmbeddedSystem> {
  const log = opts.logger ?? createLogger(null);
  const problems: ConfigError['problems'] = [];
  const configs = new Map<string, unknown>();
  let platformConfig;
  let opsConfig;
  try {
    platformConfig = loadPlatformConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  try {
    opsConfig = loadConfig(OpsConfigSchema, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  try {
    loadConfig(LogConfigSchema, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems.push(...err.problems);
  }
  for (const def of SERVICES) {
    try {
      configs.set(def.name, loadServiceConfig(def, env));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems.filter((p) => !problems.some((q) => q.variable === p.variable)));
    }
  }
  if (problems.length || !platformConfig || !opsConfig) throw new ConfigError(problems);
  const mode = platformConfig.NATS_URL ? 'cluster' : 'embedded';
  const gatewayConfig = configs.get('gateway') as { HOST: string };
  // Anyone who reaches the port can try the local sign-in: on one machine, only that
  // machine should reach it unless the operator chose otherwise by setting HOST.
  if (mode === 'embedded' && localSignInEnabled(env, mode)) {
    if (!env.HOST) gatewayConfig.HOST = '127.0.0.1';
    else if (!isLoopback(gatewayConfig.HOST)) {
      log.warn(
        { host: gatewayConfig.HOST },
        'local sign-in is reachable from the network: put the gateway behind TLS and give every local account a password',
      );
    }
  }

  // The ops listener first: /healthz answers while the rest starts, and a taken OPS_PORT is
  // said (naming the variable) before anything else is opened.
  const checks: ReadinessCheck[] = [];
  const ops = await startOpsServer({
    host: opsConfig.OPS_HOST ?? defaultOpsHost(mode),
    port: opsConfig.OPS_PORT,
    checks,
    logger: log.child({ service: 'all-in-one' }),
  });
  let platform: Platform;
  const running: RunningService[] = [];
  try {
    platform = await openPlatform(platformConfig, {
      name: 'all-in-one',
      logger: log.child({ service: 'all-in-one' }),
    });
  } catch (err) {
    await ops.close().catch(() => {});
    throw err;
  }
  checks.push(...platform.readiness);
  try {
    for (const def of SERVICES) {
      running.push(
        await startService(def, platform, {
          logger: log.child({ service: def.name }),
          config: configs.get(def.name) as never,
        }),
      );
    }
  } catch (err) {
    for (const s of running.reverse()) await s.stop().catch(() => {});
    await platform.close().catch(() => {});
    await ops.close().catch(() => {});
    throw err;
  }
  ops.phase = 'serving';
  const port = running.find((s) => s.name === 'gateway')?.port ?? 0;
  return {
    platform,
    port,
    url: `http://localhost:${port}`,
    opsPort: ops.port,
    async restartService(name) {
      const i = running.findIndex((s) => s.name === name);
      const def = SERVICES.find((d) => d.name === name);
      if (i < 0 || !def) throw new Error(`no service named ${name} runs here`);
      const logger = log.child({ service: name });
      await running[i]!.stop().catch((err: unknown) =>
        logger.warn({ err }, 'not stopped cleanly before a restart'),
      );
      running[i] = await startService(def, platform, { logger, config: configs.get(name) as never });
    },
    async stop() {
      ops.phase = 'stopping';
      await ops.close();
      // The gateway started last and stops first: no new requests while the rest drain.
      for (const s of [...running].reverse()) await s.stop();
      await platform.close();
    },
  };
}

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host === '::1' || host.startsWith('127.');

import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { ConfigError, Env } from '../config.ts';
import type { Logger } from '../logger.ts';
import { opsRoutes, type Phase, type ReadinessCheck } from './routes.ts';

/**
 * Where a process serves `/healthz`, `/readyz` and `/metrics`: never on the public port, so
 * the web app's users cannot read metrics. OPS_HOST unset: see {@link defaultOpsHost}.
 */
export const OpsConfigSchema = Type.Object({
  OPS_PORT: Env.port(9464),
  OPS_HOST: Type.Optional(Type.String({ minLength: 1 })),
});

/**
 * Loopback on a single machine (embedded mode), where only the operator's own tools should
 * look; every interface in the cluster, where Kubernetes probes and Prometheus scrape the pod IP.
 */
export const defaultOpsHost = (mode: 'embedded' | 'cluster'): string =>
  mode === 'cluster' ? '0.0.0.0' : '127.0.0.1';

export interface OpsServer {
  /** The port actually bound (differs from the one asked for when that was 0). */
  readonly port: number;
  readonly host: string;
  /** Where the process is: /readyz answers 200 only while `serving` (and its checks pass). */
  phase: Phase;
  close(): Promise<void>;
}

/**
 * Starts the small ops listener of a process (one per process, whatever it runs), first
 * thing, in phase `starting`: /healthz answers while the process connects and waits. A port
 * already taken stops the start with a ConfigError naming OPS_PORT (a second Chronicler on
 * one machine otherwise died with a bare EADDRINUSE).
 */
export async function startOpsServer(opts: {
  host: string;
  port: number;
  checks: ReadinessCheck[];
  logger: Logger;
}): Promise<OpsServer> {
  const ops = Fastify({ logger: false });
  let phase: Phase = 'starting';
  await ops.register(opsRoutes, { checks: opts.checks, phase: () => phase });
  try {
    await ops.listen({ host: opts.host, port: opts.port });
  } catch (err) {
    await ops.close().catch(() => {});
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new ConfigError([
        {
          variable: 'OPS_PORT',
          message: `port ${opts.port} on ${opts.host} is taken (another Chronicler or another program): set OPS_PORT to a free port, or to 0 for any free one`,
        },
      ]);
    }
    throw err;
  }
  const address = ops.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  opts.logger.info({ host: opts.host, port }, 'ops endpoints listening');
  return {
    port,
    host: opts.host,
    get phase() {
      return phase;
    },
    set phase(p: Phase) {
      phase = p;
    },
    close: () => ops.close(),
  };
}

import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { Env } from '../config.ts';
import type { Logger } from '../logger.ts';
import { opsRoutes, type ReadinessCheck } from './routes.ts';

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
  close(): Promise<void>;
}

/** Starts the small ops listener of a process (one per process, whatever it runs). */
export async function startOpsServer(opts: {
  host: string;
  port: number;
  checks: ReadinessCheck[];
  logger: Logger;
}): Promise<OpsServer> {
  const ops = Fastify({ logger: false });
  await ops.register(opsRoutes, { checks: opts.checks });
  await ops.listen({ host: opts.host, port: opts.port });
  const address = ops.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  opts.logger.info({ host: opts.host, port }, 'ops endpoints listening');
  return { port, host: opts.host, close: () => ops.close() };
}

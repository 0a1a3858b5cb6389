import type { FastifyInstance } from 'fastify';
import { registry } from './metrics.ts';

export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean> | boolean;
}

/**
 * Where a process is in its life: `starting` (connecting, waiting for its schema), `serving`,
 * `stopping` (it got SIGTERM and is draining). Only `serving` is ready.
 */
export type Phase = 'starting' | 'serving' | 'stopping';

/**
 * `/healthz` (the process is alive: from its first second, whatever it waits for), `/readyz`
 * (it is serving and its bus, database and Redis answer) and `/metrics` (Prometheus). Served
 * by the small ops server of every process (see startOpsServer), never on the gateway's
 * public port. `checks` is read at each request: a process adds its platform's checks once
 * it has connected.
 */
export async function opsRoutes(
  app: FastifyInstance,
  opts: { checks: ReadinessCheck[]; phase?: () => Phase },
): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_req, reply) => {
    const phase = opts.phase?.() ?? 'serving';
    if (phase !== 'serving') {
      reply.code(503);
      return { status: phase, checks: {} };
    }
    const results = await Promise.all(
      opts.checks.map(async (c) => {
        try {
          return [c.name, await withTimeout(Promise.resolve(c.check()), 2000)] as const;
        } catch {
          return [c.name, false] as const;
        }
      }),
    );
    const ready = results.every(([, ok]) => ok);
    reply.code(ready ? 200 : 503);
    return { status: ready ? 'ready' : 'not_ready', checks: Object.fromEntries(results) };
  });

  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timeout')), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

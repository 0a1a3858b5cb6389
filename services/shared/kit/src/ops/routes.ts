import type { FastifyInstance } from 'fastify';
import { registry } from './metrics.ts';

export interface ReadinessCheck {
  name: string;
  check(): Promise<boolean> | boolean;
}

/**
 * `/healthz` (the process is alive), `/readyz` (its bus, database and Redis answer) and
 * `/metrics` (Prometheus). Served by the small ops server of every process (see
 * startOpsServer), never on the gateway's public port.
 */
export async function opsRoutes(app: FastifyInstance, opts: { checks: ReadinessCheck[] }): Promise<void> {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_req, reply) => {
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

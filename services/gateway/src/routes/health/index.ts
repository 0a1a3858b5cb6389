import {
  HealthResponseSchema,
  pingRpc,
  SERVICE_NAMES,
  type HealthResponse,
  type ServiceName,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { FastifyInstance } from 'fastify';

const PING_TIMEOUT_MS = 2000;

/** GET /api/health: pings all ten services over the bus, in parallel. */
export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  // A service that is down has no version to report; keep the last one it told us.
  const lastVersion = new Map<ServiceName, string>();

  app.get(
    '/health',
    {
      config: { public: true },
      schema: { response: { 200: HealthResponseSchema, 503: HealthResponseSchema } },
    },
    async (_req, reply) => {
      const services = await Promise.all(
        SERVICE_NAMES.map(async (name) => {
          try {
            const pong = await call(app.ctx.bus, pingRpc(name), {}, { timeoutMs: PING_TIMEOUT_MS });
            lastVersion.set(name, pong.version);
            return { name, status: 'up' as const, version: pong.version };
          } catch {
            return { name, status: 'down' as const, version: lastVersion.get(name) ?? 'unknown' };
          }
        }),
      );
      const body: HealthResponse = {
        status: services.every((s) => s.status === 'up') ? 'ok' : 'degraded',
        services,
      };
      return reply.code(body.status === 'ok' ? 200 : 503).send(body);
    },
  );
}

import {
  audioConfigRpc,
  HealthResponseSchema,
  pingRpc,
  SERVICE_NAMES,
  SERVICES_WITH_STATE,
  serviceStateRpc,
  type HealthResponse,
  type ServiceName,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { FastifyInstance } from 'fastify';

const PING_TIMEOUT_MS = 2000;

/** GET /api/health: pings all ten services over the bus, in parallel; 'idle' ones say why in `detail`. */
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
      const speech = call(app.ctx.bus, audioConfigRpc, {}, { timeoutMs: PING_TIMEOUT_MS }).catch(() => null);
      const services = await Promise.all(
        SERVICE_NAMES.map(async (name) => {
          try {
            const pong = await call(app.ctx.bus, pingRpc(name), {}, { timeoutMs: PING_TIMEOUT_MS });
            lastVersion.set(name, pong.version);
            if (SERVICES_WITH_STATE.includes(name)) {
              // It answered ping: an unanswered state question leaves it 'up'.
              const state = await call(
                app.ctx.bus,
                serviceStateRpc(name),
                {},
                { timeoutMs: PING_TIMEOUT_MS },
              ).catch(() => null);
              if (state?.status === 'idle') {
                return {
                  name,
                  status: 'idle' as const,
                  version: pong.version,
                  ...(state.detail ? { detail: state.detail } : {}),
                };
              }
            }
            return { name, status: 'up' as const, version: pong.version };
          } catch {
            return { name, status: 'down' as const, version: lastVersion.get(name) ?? 'unknown' };
          }
        }),
      );
      const body: HealthResponse = {
        // An idle service (the voice bot without a token) is working as configured.
        status: services.every((s) => s.status !== 'down') ? 'ok' : 'degraded',
        services,
      };
      const provider = await speech;
      if (provider) body.speech_provider = provider.speech_provider;
      return reply.code(body.status === 'ok' ? 200 : 503).send(body);
    },
  );
}

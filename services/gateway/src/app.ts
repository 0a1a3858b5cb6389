import { opsRoutes, type ServiceContext } from '@chronicler/kit';
import type { Static } from '@sinclair/typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import errors from './plugins/errors.ts';
import httpMetrics from './plugins/http-metrics.ts';
import web from './plugins/web.ts';
import healthRoutes from './routes/health/index.ts';
import type { GatewayConfigSchema } from './service.ts';

export type GatewayContext = ServiceContext<Static<typeof GatewayConfigSchema>>;

declare module 'fastify' {
  interface FastifyInstance {
    ctx: GatewayContext;
  }
}

/**
 * The gateway, laid out like fastify's demo app: external plugins, then app plugins,
 * then one folder per route area, all under /api. The web app is served for every other
 * path so client-side routes survive a reload.
 */
export async function buildApp(ctx: GatewayContext): Promise<FastifyInstance> {
  const app = Fastify({
    // pino's Logger is what fastify wants; its type differs only in generics.
    loggerInstance: ctx.logger as FastifyBaseLogger,
    requestIdHeader: 'x-request-id',
    bodyLimit: 1024 * 1024,
    trustProxy: true,
  });
  app.decorate('ctx', ctx);

  await app.register(errors);
  await app.register(httpMetrics);
  await app.register(opsRoutes, { checks: ctx.platform.readiness });
  await app.register(
    async (api) => {
      await api.register(healthRoutes);
    },
    { prefix: '/api' },
  );
  await app.register(web, { root: ctx.config.WEB_DIST });
  return app;
}

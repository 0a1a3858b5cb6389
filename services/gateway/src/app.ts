import type { ServiceContext } from '@chronicler/kit';
import websocket from '@fastify/websocket';
import type { Static } from '@sinclair/typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import auth from './plugins/auth.ts';
import compression from './plugins/compression.ts';
import errors, { frameworkErrors } from './plugins/errors.ts';
import httpMetrics from './plugins/http-metrics.ts';
import idempotency from './plugins/idempotency.ts';
import liveSocket from './plugins/live-socket.ts';
import openapi from './plugins/openapi.ts';
import rateLimit from './plugins/rate-limit.ts';
import { RequestLogController } from './plugins/request-log.ts';
import { lazyChildLogger } from './lib/lazy-logger.ts';
import security from './plugins/security.ts';
import validation from './plugins/validation.ts';
import web from './plugins/web.ts';
import adminRoutes from './routes/admin/index.ts';
import authRoutes from './routes/auth/index.ts';
import campaignRoutes from './routes/campaign/index.ts';
import chatRoutes from './routes/chat/index.ts';
import codexRoutes from './routes/codex/index.ts';
import configRoutes from './routes/config/index.ts';
import discordRoutes from './routes/discord/index.ts';
import groupRoutes from './routes/groups/index.ts';
import healthRoutes from './routes/health/index.ts';
import liveIngestRoutes from './routes/live-ingest/index.ts';
import planningRoutes from './routes/planning/index.ts';
import searchRoutes from './routes/search/index.ts';
import recordingRoutes from './routes/recordings/index.ts';
import sessionAudioRoutes from './routes/session-audio/index.ts';
import meRoutes from './routes/me/index.ts';
import shareRoutes from './routes/shares/index.ts';
import sharedRoutes from './routes/shared/index.ts';
import summaryRoutes from './routes/summaries/index.ts';
import tableRecordingRoutes from './routes/table-recordings/index.ts';
import transcriptRoutes from './routes/transcripts/index.ts';
import transcriptToolRoutes from './routes/transcript-tools/index.ts';
import userRoutes from './routes/users/index.ts';
import type { GatewayConfigSchema } from './config.ts';

export type GatewayContext = ServiceContext<Static<typeof GatewayConfigSchema>>;

declare module 'fastify' {
  interface FastifyInstance {
    ctx: GatewayContext;
  }
}

/** Default request body limit; a route that needs more (audio upload) sets its own. */
const BODY_LIMIT = 1024 * 1024;

/**
 * Longest path parameter: every id is far shorter (a UUID is 36), so a longer one names
 * nothing and is answered 404 by the router before any work.
 */
const MAX_PARAM_LENGTH = 200;

/**
 * The gateway, laid out like fastify's demo app: external plugins, then app plugins,
 * then one folder per route area, all under /api. The web app is served for every other
 * path so client-side routes survive a reload. Plugin order matters for the hooks:
 * security headers, then the per-address rate limit (before any work), then
 * authentication and the guard.
 */
export async function buildApp(ctx: GatewayContext): Promise<FastifyInstance> {
  const app = Fastify({
    // pino's Logger is what fastify wants; its type differs only in generics.
    loggerInstance: ctx.logger as FastifyBaseLogger,
    requestIdHeader: 'x-request-id',
    // The access log: one line per request at info, ACCESS_LOG_SAMPLE of them (plugins/request-log.ts).
    logController: new RequestLogController(ctx.config.ACCESS_LOG_SAMPLE),
    childLoggerFactory: lazyChildLogger,
    bodyLimit: BODY_LIMIT,
    trustProxy: ctx.config.TRUST_PROXY,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Bad percent-encoding and over-long ids answer in `{detail}` like every other error.
    frameworkErrors,
    // While stopping (a rollout), a request that still arrives on an open keep-alive connection
    // is served, with `Connection: close`, instead of answered 503: the load balancer has
    // already moved new connections away (readiness, preStop), and no request fails.
    return503OnClosing: false,
  });
  app.decorate('ctx', ctx);

  await app.register(errors);
  await app.register(validation);
  await app.register(httpMetrics);
  await app.register(security);
  await app.register(rateLimit);
  await app.register(auth);
  // The chat and planning sockets (/api/ws/*); one frame is at most 1 MiB, like one bus message.
  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  // The live transcript socket (socket.io at /socket.io), after websocket: it takes its path's upgrades.
  await app.register(liveSocket);
  // Creates that honour Idempotency-Key; /healthz, /readyz and /metrics are on the ops port.
  await app.register(idempotency);
  // Before the routes, which it collects into /api/openapi.json as they are added.
  await app.register(openapi);
  await app.register(
    async (api) => {
      // Large JSON answers compressed; the web app's files below are not (see the plugin).
      await api.register(compression);
      await api.register(healthRoutes);
      await api.register(configRoutes);
      await api.register(authRoutes);
      await api.register(transcriptRoutes);
      await api.register(transcriptToolRoutes);
      await api.register(groupRoutes);
      await api.register(summaryRoutes);
      await api.register(codexRoutes);
      await api.register(campaignRoutes);
      await api.register(userRoutes);
      await api.register(planningRoutes);
      await api.register(chatRoutes);
      await api.register(liveIngestRoutes);
      await api.register(adminRoutes);
      await api.register(searchRoutes);
      await api.register(shareRoutes);
      await api.register(sharedRoutes);
      await api.register(sessionAudioRoutes);
      await api.register(recordingRoutes);
      await api.register(discordRoutes);
      await api.register(meRoutes);
      await api.register(tableRecordingRoutes);
    },
    { prefix: '/api' },
  );
  await app.register(web, { root: ctx.config.WEB_DIST });
  return app;
}

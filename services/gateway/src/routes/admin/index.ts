import {
  ADMIN_RECENT_AI_REQUESTS,
  AdminAiCostsWeeklySchema,
  adminAiCostsWeeklyRpc,
  AdminAiRequestsQuerySchema,
  AdminAiRequestsSchema,
  adminAiRequestsRpc,
  AdminStatsSchema,
  adminStatsRpc,
  AdminTranscriptionHoursSchema,
  adminTranscriptionHoursRpc,
  AdminUserMetricsQuerySchema,
  AdminUserMetricsSchema,
  adminUserMetricsRpc,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAdmin } from '../../plugins/auth.ts';

/**
 * /api/admin: the admin dashboard's figures, admins only, answered by admin-stats.
 * Admins only: the guard answers 403 to everyone else on /api/admin/*, and requireAdmin
 * says so here too. (/admin/transcripts/:id/llm-summary lives with the summaries.)
 */
export default async function adminRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAdmin);
  const bus = app.ctx.bus;

  app.get('/admin/stats', { schema: { response: { 200: AdminStatsSchema } } }, () =>
    call(bus, adminStatsRpc, {}),
  );

  app.get(
    '/admin/user-metrics',
    { schema: { querystring: AdminUserMetricsQuerySchema, response: { 200: AdminUserMetricsSchema } } },
    (req) => call(bus, adminUserMetricsRpc, { start: req.query.start, end: req.query.end }),
  );

  app.get(
    '/admin/ai-requests',
    { schema: { querystring: AdminAiRequestsQuerySchema, response: { 200: AdminAiRequestsSchema } } },
    (req) => call(bus, adminAiRequestsRpc, { limit: req.query.limit ?? ADMIN_RECENT_AI_REQUESTS }),
  );

  app.get(
    '/admin/transcription-hours-per-day',
    { schema: { response: { 200: AdminTranscriptionHoursSchema } } },
    () => call(bus, adminTranscriptionHoursRpc, {}),
  );

  app.get('/admin/ai-costs-weekly', { schema: { response: { 200: AdminAiCostsWeeklySchema } } }, () =>
    call(bus, adminAiCostsWeeklyRpc, {}),
  );
}

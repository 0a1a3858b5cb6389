import {
  checkGroupSummaryRpc,
  GeneratedSummarySchema,
  generateGroupSummaryRpc,
  generateSessionSummaryRpc,
  getLlmSummaryRpc,
  GroupSchema,
  GroupSummaryCheckSchema,
  IdParamsSchema,
  LlmSummarySchema,
  SUMMARY_CALL_TIMEOUT_MS,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAdmin, requireAuth } from '../../plugins/auth.ts';

/** Generation waits on the model, far longer than the bus's default timeout. */
const slow = { timeoutMs: SUMMARY_CALL_TIMEOUT_MS };

/** Session and campaign summaries, and the raw AI summary for admins. */
export default async function summaryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  app.post(
    '/transcripts/:id/generate-summary',
    { schema: { params: IdParamsSchema, response: { 200: GeneratedSummarySchema } } },
    (req) => call(bus, generateSessionSummaryRpc, { owner_id: req.user!.id, id: req.params.id }, slow),
  );

  app.post(
    '/groups/:id/summary',
    { preHandler: requireAdmin, schema: { params: IdParamsSchema, response: { 200: GroupSchema } } },
    (req) => call(bus, generateGroupSummaryRpc, { owner_id: req.user!.id, id: req.params.id }, slow),
  );

  app.post(
    '/groups/:id/check-summary',
    { schema: { params: IdParamsSchema, response: { 200: GroupSummaryCheckSchema } } },
    (req) => call(bus, checkGroupSummaryRpc, { owner_id: req.user!.id, id: req.params.id }, slow),
  );

  // Any owner's session: admins read it to see what the model wrote (the guard already
  // answers 403 to others on /api/admin/*; requireAdmin says so here too).
  app.get(
    '/admin/transcripts/:id/llm-summary',
    { preHandler: requireAdmin, schema: { params: IdParamsSchema, response: { 200: LlmSummarySchema } } },
    (req) => call(bus, getLlmSummaryRpc, { id: req.params.id }),
  );
}

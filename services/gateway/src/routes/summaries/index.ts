import {
  checkGroupSummaryRpc,
  GeneratedSummarySchema,
  generateGroupSummaryRpc,
  generateSessionSummaryRpc,
  getLlmSummaryRpc,
  GroupSchema,
  GroupSummaryCheckSchema,
  LlmSummarySchema,
  SUMMARY_CALL_TIMEOUT_MS,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requireAdmin, requireAuth } from '../../plugins/auth.ts';

const IdParams = Type.Object({ id: Type.String() });
type Id = { Params: typeof IdParams.static };
/** Generation waits on the model, far longer than the bus's default timeout. */
const slow = { timeoutMs: SUMMARY_CALL_TIMEOUT_MS };

/** Session and campaign summaries, and the raw AI summary for admins. */
export default async function summaryRoutes(app: FastifyInstance): Promise<void> {
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  app.post<Id>(
    '/transcripts/:id/generate-summary',
    { schema: { params: IdParams, response: { 200: GeneratedSummarySchema } } },
    (req) => call(bus, generateSessionSummaryRpc, { owner_id: req.user!.id, id: req.params.id }, slow),
  );

  app.post<Id>(
    '/groups/:id/summary',
    { preHandler: requireAdmin, schema: { params: IdParams, response: { 200: GroupSchema } } },
    (req) => call(bus, generateGroupSummaryRpc, { owner_id: req.user!.id, id: req.params.id }, slow),
  );

  app.post<Id>(
    '/groups/:id/check-summary',
    { schema: { params: IdParams, response: { 200: GroupSummaryCheckSchema } } },
    (req) => call(bus, checkGroupSummaryRpc, { owner_id: req.user!.id, id: req.params.id }, slow),
  );

  // Any owner's session: admins read it to see what the model wrote (the guard already
  // answers 403 to others on /api/admin/*; requireAdmin says so here too).
  app.get<Id>(
    '/admin/transcripts/:id/llm-summary',
    { preHandler: requireAdmin, schema: { params: IdParams, response: { 200: LlmSummarySchema } } },
    (req) => call(bus, getLlmSummaryRpc, { id: req.params.id }),
  );
}

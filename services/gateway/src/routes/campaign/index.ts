import {
  ASK_REPLY_TIMEOUT_MS,
  AskAnswerSchema,
  AskBodySchema,
  chatAskRpc,
  checkGroupDueRpc,
  GroupSchema,
  IdParamsSchema,
  restoreSummaryRpc,
  SummaryVersionParamsSchema,
  summaryVersionsRpc,
  SummaryVersionsSchema,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';

/**
 * A campaign's memory: questions asked across every session of one of the user's groups, and
 * the campaign summaries replaced so far, kept to read and restore. Another user's group is 404.
 */
export default async function campaignRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  // The chat service checks the question (blank or over ASK_QUESTION_MAX_CHARS: 400 in words)
  // and the group (404), then answers from the passages the transcript service finds.
  app.post(
    '/groups/:id/ask',
    { schema: { params: IdParamsSchema, body: AskBodySchema, response: { 200: AskAnswerSchema } } },
    (req) =>
      call(
        bus,
        chatAskRpc,
        { owner_id: req.user!.id, group_id: req.params.id, question: req.body.question },
        { timeoutMs: ASK_REPLY_TIMEOUT_MS },
      ),
  );

  app.get(
    '/groups/:id/summary-versions',
    { schema: { params: IdParamsSchema, response: { 200: SummaryVersionsSchema } } },
    async (req) => {
      const owner = { owner_id: req.user!.id, id: req.params.id };
      // The group first: another user's is 404 before the summary service is asked anything.
      const list = await call(bus, summaryVersionsRpc, owner);
      const { due } = await call(bus, checkGroupDueRpc, owner);
      return { ...list, replace_due: due };
    },
  );

  app.post(
    '/groups/:id/summary-versions/:versionId/restore',
    { schema: { params: SummaryVersionParamsSchema, response: { 200: GroupSchema } } },
    (req) =>
      call(bus, restoreSummaryRpc, {
        owner_id: req.user!.id,
        id: req.params.id,
        version_id: req.params.versionId,
      }),
  );
}

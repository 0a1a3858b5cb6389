import {
  IdParamsSchema,
  memberForgetRpc,
  memberRecordedRpc,
  RecordedSessionsSchema,
} from '@chronicler/contracts';
import { call, ServiceError } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';

/**
 * /api/me/recorded: what the voice bot recorded of the signed-in user in other people's
 * sessions (found by the Discord id of their account: only someone who signed in with
 * Discord has any), with their own lines only, and the removal of their part of one session.
 */
export default async function meRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  app.get('/me/recorded', { schema: { response: { 200: RecordedSessionsSchema } } }, async (req) => {
    const discordId = req.user!.discord_id;
    if (!discordId) return [];
    return call(bus, memberRecordedRpc, { discord_id: discordId, with_lines: true });
  });

  app.delete(
    '/me/recorded/:id',
    {
      schema: {
        params: IdParamsSchema,
        response: { 200: Type.Object({ lines: Type.Integer(), tracks: Type.Integer() }) },
      },
    },
    async (req) => {
      const discordId = req.user!.discord_id;
      if (!discordId) throw new ServiceError('not_found', 'No recorded data of yours in this session');
      return call(bus, memberForgetRpc, { discord_id: discordId, id: req.params.id });
    },
  );
}

import { GroupSchema, listGroupsRpc } from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';

/** /api/groups: the signed-in user's groups (campaigns). */
export default async function groupRoutes(app: FastifyInstance): Promise<void> {
  app.addHook('preHandler', requireAuth);

  app.get('/groups', { schema: { response: { 200: Type.Array(GroupSchema) } } }, (req) =>
    call(app.ctx.bus, listGroupsRpc, { owner_id: req.user!.id }),
  );
}

import {
  createGroupRpc,
  deleteGroupRpc,
  GroupNameField,
  GroupSchema,
  listGroupsRpc,
  OkSchema,
  updateGroupRpc,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { nextPageLink, PageQuery, pageRequest } from '../../lib/paging.ts';
import { requireAuth } from '../../plugins/auth.ts';

const IdParams = Type.Object({ id: Type.String() });

/** /api/groups: the signed-in user's groups (campaigns). */
export default async function groupRoutes(app: FastifyInstance): Promise<void> {
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  // One page per request (see lib/paging.ts): the body stays the specification's list.
  app.get<{ Querystring: PageQuery }>(
    '/groups',
    { schema: { querystring: PageQuery, response: { 200: Type.Array(GroupSchema) } } },
    async (req, reply) => {
      const paging = pageRequest(req.query);
      const page = await call(bus, listGroupsRpc, { owner_id: req.user!.id, ...paging });
      nextPageLink(req, reply, paging.limit, page.next);
      return page.items;
    },
  );

  app.post<{ Body: { name?: string } }>(
    '/groups',
    { schema: { body: Type.Object({ name: GroupNameField }), response: { 200: GroupSchema } } },
    (req) => call(bus, createGroupRpc, { owner_id: req.user!.id, name: req.body.name }),
  );

  app.put<{ Params: typeof IdParams.static; Body: { name?: string; summary?: string } }>(
    '/groups/:id',
    {
      schema: {
        params: IdParams,
        body: Type.Object({ name: GroupNameField, summary: Type.Optional(Type.String()) }),
        response: { 200: GroupSchema },
      },
    },
    (req) =>
      call(bus, updateGroupRpc, {
        owner_id: req.user!.id,
        id: req.params.id,
        name: req.body.name,
        summary: req.body.summary,
      }),
  );

  app.delete<{ Params: typeof IdParams.static }>(
    '/groups/:id',
    { schema: { params: IdParams, response: { 200: OkSchema } } },
    (req) => call(bus, deleteGroupRpc, { owner_id: req.user!.id, id: req.params.id }),
  );
}

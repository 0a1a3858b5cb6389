import {
  CarryPrepBodySchema,
  CreatePrepItemBodySchema,
  GroupPrepSchema,
  PrepItemParamsSchema,
  PrepItemSchema,
  prepCarryRpc,
  prepCreateRpc,
  prepDeleteRpc,
  prepListRpc,
  prepUpdateRpc,
  UpdatePrepItemBodySchema,
  CreateGroupBodySchema,
  createGroupRpc,
  deleteGroupRpc,
  getGroupCharactersRpc,
  getGroupVocabularyRpc,
  GroupCharactersSchema,
  GroupSchema,
  GroupSpotlightSchema,
  groupSpotlightRpc,
  GroupVocabularySchema,
  IdParamsSchema,
  listGroupsRpc,
  OkSchema,
  PutGroupCharactersBodySchema,
  putGroupCharactersRpc,
  PutGroupVocabularyBodySchema,
  putGroupVocabularyRpc,
  UpdateGroupBodySchema,
  updateGroupRpc,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { nextPageLink, PageQuery, pageRequest } from '../../lib/paging.ts';
import { requireAuth } from '../../plugins/auth.ts';

/** /api/groups: the signed-in user's groups (campaigns). */
export default async function groupRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  // One page per request (see lib/paging.ts): the body stays the specification's list.
  app.get(
    '/groups',
    { schema: { querystring: PageQuery, response: { 200: Type.Array(GroupSchema) } } },
    async (req, reply) => {
      const paging = pageRequest(req.query);
      const page = await call(bus, listGroupsRpc, { owner_id: req.user!.id, ...paging });
      nextPageLink(req, reply, paging.limit, page.next);
      return page.items;
    },
  );

  app.post('/groups', { schema: { body: CreateGroupBodySchema, response: { 200: GroupSchema } } }, (req) =>
    call(bus, createGroupRpc, { owner_id: req.user!.id, name: req.body.name }),
  );

  app.put(
    '/groups/:id',
    {
      schema: {
        params: IdParamsSchema,
        body: UpdateGroupBodySchema,
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

  app.delete('/groups/:id', { schema: { params: IdParamsSchema, response: { 200: OkSchema } } }, (req) =>
    call(bus, deleteGroupRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  // The campaign vocabulary: the user's own terms and the names learned from the group's
  // sessions, which a live session of the group sends its speech provider as keyterms.
  app.get(
    '/groups/:id/vocabulary',
    { schema: { params: IdParamsSchema, response: { 200: GroupVocabularySchema } } },
    (req) => call(bus, getGroupVocabularyRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  app.put(
    '/groups/:id/vocabulary',
    {
      schema: {
        params: IdParamsSchema,
        body: PutGroupVocabularyBodySchema,
        response: { 200: GroupVocabularySchema },
      },
    },
    (req) =>
      call(bus, putGroupVocabularyRpc, { owner_id: req.user!.id, id: req.params.id, terms: req.body.terms }),
  );

  // Who is who: which player speaks for which character, the user's map and suggestions
  // inferred from the group's sessions; chat, summaries and planning read it.
  app.get(
    '/groups/:id/characters',
    { schema: { params: IdParamsSchema, response: { 200: GroupCharactersSchema } } },
    (req) => call(bus, getGroupCharactersRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  app.put(
    '/groups/:id/characters',
    {
      schema: {
        params: IdParamsSchema,
        body: PutGroupCharactersBodySchema,
        response: { 200: GroupCharactersSchema },
      },
    },
    (req) =>
      call(bus, putGroupCharactersRpc, { owner_id: req.user!.id, id: req.params.id, links: req.body.links }),
  );

  // The spotlight across the campaign's sessions: per player, with the sessions since a large share.
  app.get(
    '/groups/:id/spotlight',
    { schema: { params: IdParamsSchema, response: { 200: GroupSpotlightSchema } } },
    (req) => call(bus, groupSpotlightRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  // Prep that ticks itself off: the checklist of what the GM prepared for the next session,
  // ticked with its moment as items come up in a live session of the group (planning service).
  app.get(
    '/groups/:id/prep',
    { schema: { params: IdParamsSchema, response: { 200: GroupPrepSchema } } },
    (req) => call(bus, prepListRpc, { owner_id: req.user!.id, group_id: req.params.id }),
  );

  app.post(
    '/groups/:id/prep',
    { schema: { params: IdParamsSchema, body: CreatePrepItemBodySchema, response: { 200: PrepItemSchema } } },
    (req) =>
      call(bus, prepCreateRpc, { owner_id: req.user!.id, group_id: req.params.id, text: req.body.text }),
  );

  app.patch(
    '/groups/:id/prep/:itemId',
    {
      schema: {
        params: PrepItemParamsSchema,
        body: UpdatePrepItemBodySchema,
        response: { 200: PrepItemSchema },
      },
    },
    (req) =>
      call(bus, prepUpdateRpc, {
        owner_id: req.user!.id,
        group_id: req.params.id,
        item_id: req.params.itemId,
        ...(req.body.text !== undefined ? { text: req.body.text } : {}),
        ...(req.body.done !== undefined ? { done: req.body.done } : {}),
      }),
  );

  app.delete(
    '/groups/:id/prep/:itemId',
    { schema: { params: PrepItemParamsSchema, response: { 200: OkSchema } } },
    (req) =>
      call(bus, prepDeleteRpc, {
        owner_id: req.user!.id,
        group_id: req.params.id,
        item_id: req.params.itemId,
      }),
  );

  // After a session: what came up leaves the plan, the rest is carried into the next session's.
  app.post(
    '/groups/:id/prep/carry',
    { schema: { params: IdParamsSchema, body: CarryPrepBodySchema, response: { 200: GroupPrepSchema } } },
    (req) =>
      call(bus, prepCarryRpc, {
        owner_id: req.user!.id,
        group_id: req.params.id,
        transcript_id: req.body.transcript_id,
      }),
  );
}

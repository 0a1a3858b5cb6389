import {
  CreatedShareSchema,
  CreateShareBodySchema,
  createShareRpc,
  groupExistsRpc,
  IdParamsSchema,
  listSharesRpc,
  OkSchema,
  ShareParamsSchema,
  ShareSchema,
  revokeShareRpc,
  type ShareKind,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';

/** A group's links need the owner's group: the group service says whether it is (the session's are checked by the transcript service). */
async function checkTarget(bus: Bus, kind: ShareKind, ownerId: string, id: string): Promise<void> {
  if (kind !== 'group') return;
  if (!(await call(bus, groupExistsRpc, { owner_id: ownerId, id })).exists) {
    throw new ServiceError('not_found', 'Group not found');
  }
}

/**
 * /api/transcripts/{id}/shares and /api/groups/{id}/shares: the owner's read-only links to a
 * session or a campaign. Creating answers the token once; listing never shows it; DELETE
 * revokes a link at once. Another user's session or group answers 404.
 */
export default async function shareRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  for (const [kind, collection] of [
    ['transcript', 'transcripts'],
    ['group', 'groups'],
  ] as const) {
    app.post(
      `/${collection}/:id/shares`,
      {
        schema: {
          params: IdParamsSchema,
          body: CreateShareBodySchema,
          response: { 201: CreatedShareSchema },
        },
      },
      async (req, reply) => {
        const owner = req.user!.id;
        await checkTarget(bus, kind, owner, req.params.id);
        const expires = req.body.expires_at;
        const share = await call(bus, createShareRpc, {
          owner_id: owner,
          kind,
          target_id: req.params.id,
          ...(expires ? { expires_at: expires } : {}),
        });
        return reply.code(201).send(share);
      },
    );

    app.get(
      `/${collection}/:id/shares`,
      { schema: { params: IdParamsSchema, response: { 200: Type.Array(ShareSchema) } } },
      async (req) => {
        await checkTarget(bus, kind, req.user!.id, req.params.id);
        return call(bus, listSharesRpc, { owner_id: req.user!.id, kind, target_id: req.params.id });
      },
    );

    app.delete(
      `/${collection}/:id/shares/:shareId`,
      { schema: { params: ShareParamsSchema, response: { 200: OkSchema } } },
      (req) =>
        call(bus, revokeShareRpc, {
          owner_id: req.user!.id,
          kind,
          target_id: req.params.id,
          share_id: req.params.shareId,
        }),
    );
  }
}

import {
  CreatedShareSchema,
  createShareRpc,
  CreateStoryShareBodySchema,
  getGroupCharactersRpc,
  groupExistsRpc,
  IdParamsSchema,
  listSharesRpc,
  OkSchema,
  revokeShareRpc,
  ShareParamsSchema,
  ShareSchema,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';

async function checkGroup(bus: Bus, ownerId: string, id: string): Promise<void> {
  if (!(await call(bus, groupExistsRpc, { owner_id: ownerId, id })).exists) {
    throw new ServiceError('not_found', 'Group not found');
  }
}

/** The character as the Who Is Who map spells it; an unknown one is refused in words. */
async function knownCharacter(
  bus: Bus,
  ownerId: string,
  id: string,
  raw: string | undefined,
): Promise<string> {
  const wanted = (raw ?? '').replace(/\s+/g, ' ').trim();
  if (!wanted) throw new ServiceError('bad_request', 'Character cannot be empty.');
  const map = await call(bus, getGroupCharactersRpc, { owner_id: ownerId, id }, { timeoutMs: 30_000 });
  const found = [...map.links, ...map.inferred].find(
    (c) => c.character.toLowerCase() === wanted.toLowerCase(),
  );
  if (!found) throw new ServiceError('not_found', `No character named ${wanted} in this campaign.`);
  return found.character;
}

/**
 * /api/groups/{id}/character-recap/shares and /api/groups/{id}/previously/shares: read-only links
 * (the existing share links, two more kinds) to one character's story and to the campaign's
 * "previously on", which a player reads signed out with only the codex entries marked for players.
 */
export default async function storyShareRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const bus = app.ctx.bus;

  for (const kind of ['character-recap', 'previously'] as const) {
    app.post(
      `/groups/:id/${kind}/shares`,
      {
        schema: {
          params: IdParamsSchema,
          body: CreateStoryShareBodySchema,
          response: { 201: CreatedShareSchema },
        },
      },
      async (req, reply) => {
        const owner = req.user!.id;
        await checkGroup(bus, owner, req.params.id);
        const subject =
          kind === 'character-recap'
            ? await knownCharacter(bus, owner, req.params.id, req.body.character)
            : '';
        const expires = req.body.expires_at;
        const share = await call(bus, createShareRpc, {
          owner_id: owner,
          kind,
          target_id: req.params.id,
          ...(subject ? { subject } : {}),
          ...(expires ? { expires_at: expires } : {}),
        });
        return reply.code(201).send(share);
      },
    );

    app.get(
      `/groups/:id/${kind}/shares`,
      { schema: { params: IdParamsSchema, response: { 200: Type.Array(ShareSchema) } } },
      async (req) => {
        await checkGroup(bus, req.user!.id, req.params.id);
        return call(bus, listSharesRpc, { owner_id: req.user!.id, kind, target_id: req.params.id });
      },
    );

    app.delete(
      `/groups/:id/${kind}/shares/:shareId`,
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

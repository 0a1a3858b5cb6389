import {
  CreatedShareSchema,
  createShareRpc,
  CreateShareBodySchema,
  getGroupCharactersRpc,
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

/**
 * A campaign's links (to it, a character's story, its "previously on") need the owner's group:
 * the group service says whether it is (a session's are checked by the transcript service).
 */
async function checkTarget(bus: Bus, kind: ShareKind, ownerId: string, id: string): Promise<void> {
  if (kind === 'transcript') return;
  if (!(await call(bus, groupExistsRpc, { owner_id: ownerId, id })).exists) {
    throw new ServiceError('not_found', 'Group not found');
  }
}

/** The character a story's link tells of, as the Who Is Who map spells it; an unknown one is refused in words. */
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

/** Where each kind's links are: a session's, a campaign's, a character's story's, "previously on"'s. */
const COLLECTIONS: [ShareKind, string][] = [
  ['transcript', '/transcripts/:id/shares'],
  ['group', '/groups/:id/shares'],
  ['character-recap', '/groups/:id/character-recap/shares'],
  ['previously', '/groups/:id/previously/shares'],
];

/**
 * The owner's read-only links to a session, a campaign, one character's story in a campaign, or
 * its "previously on" (the last two show players only the codex entries marked for them).
 * Creating answers the token once; listing never shows it; DELETE revokes a link at once.
 * Another user's session or group answers 404.
 */
export default async function shareRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  for (const [kind, path] of COLLECTIONS) {
    app.post(
      path,
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
      path,
      { schema: { params: IdParamsSchema, response: { 200: Type.Array(ShareSchema) } } },
      async (req) => {
        await checkTarget(bus, kind, req.user!.id, req.params.id);
        return call(bus, listSharesRpc, { owner_id: req.user!.id, kind, target_id: req.params.id });
      },
    );

    app.delete(
      `${path}/:shareId`,
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

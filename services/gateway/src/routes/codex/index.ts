import {
  characterRecapRpc,
  CharacterRecapQuerySchema,
  CharacterRecapSchema,
  CodexEntryParamsSchema,
  CodexEntryPatchSchema,
  CodexEntrySchema,
  CodexMergeBodySchema,
  CodexQuerySchema,
  CodexSchema,
  getCodexRpc,
  getGroupCharactersRpc,
  IdParamsSchema,
  mergeCodexEntriesRpc,
  patchCodexEntryRpc,
  previouslyRpc,
  PreviouslySchema,
  refreshCodexRpc,
  SUMMARY_CALL_TIMEOUT_MS,
  type Codex,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';

/** Stories wait on the model, or on the offline engine reading every session. */
const slow = { timeoutMs: SUMMARY_CALL_TIMEOUT_MS };

/**
 * The campaign codex (GET, PATCH an entry, merge entries), a character's story and "previously
 * on", and the links that share those two with players. Owner-checked by the services: another
 * user's group or entry answers 404.
 */
export default async function codexRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  app.get(
    '/groups/:id/codex',
    { schema: { params: IdParamsSchema, querystring: CodexQuerySchema, response: { 200: CodexSchema } } },
    async (req): Promise<Codex> => {
      const owner = req.user!.id;
      const id = req.params.id;
      // What is not read yet is read behind the answer; the page asks again while `updating`. The
      // state comes first and the entries after it: read the other way round, a reading applied
      // between the two would answer "all read" beside entries from before it.
      const [state, map] = await Promise.all([
        call(bus, refreshCodexRpc, { owner_id: owner, id, wait: false }, { timeoutMs: 30_000 }),
        call(bus, getGroupCharactersRpc, { owner_id: owner, id }, { timeoutMs: 30_000 }),
      ]);
      const codex = await call(bus, getCodexRpc, {
        owner_id: owner,
        id,
        hidden: req.query.hidden === 'true',
      });
      return {
        group_id: id,
        entries: codex.entries,
        party: [...map.links, ...map.inferred.map(({ speaker, character }) => ({ speaker, character }))],
        updating: state.pending > 0,
        sessions_read: state.read,
        sessions_total: state.total,
      };
    },
  );

  app.patch(
    '/groups/:id/codex/:entryId',
    {
      schema: {
        params: CodexEntryParamsSchema,
        body: CodexEntryPatchSchema,
        response: { 200: CodexEntrySchema },
      },
    },
    (req) =>
      call(bus, patchCodexEntryRpc, {
        owner_id: req.user!.id,
        id: req.params.id,
        entry_id: req.params.entryId,
        change: req.body,
      }),
  );

  app.post(
    '/groups/:id/codex/merge',
    { schema: { params: IdParamsSchema, body: CodexMergeBodySchema, response: { 200: CodexEntrySchema } } },
    (req) =>
      call(bus, mergeCodexEntriesRpc, {
        owner_id: req.user!.id,
        id: req.params.id,
        entry_ids: req.body.entry_ids,
        ...(req.body.into ? { into: req.body.into } : {}),
      }),
  );

  app.get(
    '/groups/:id/character-recap',
    {
      schema: {
        params: IdParamsSchema,
        querystring: CharacterRecapQuerySchema,
        response: { 200: CharacterRecapSchema },
      },
    },
    (req) =>
      call(
        bus,
        characterRecapRpc,
        { owner_id: req.user!.id, id: req.params.id, character: req.query.character ?? '', audience: 'gm' },
        slow,
      ),
  );

  app.get(
    '/groups/:id/previously',
    { schema: { params: IdParamsSchema, response: { 200: PreviouslySchema } } },
    (req) => call(bus, previouslyRpc, { owner_id: req.user!.id, id: req.params.id, audience: 'gm' }, slow),
  );
}

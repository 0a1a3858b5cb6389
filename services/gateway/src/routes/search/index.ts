import {
  groupExistsRpc,
  SEARCH_PAGE_DEFAULT,
  SEARCH_PAGE_MAX,
  SEARCH_QUERY_MAX,
  SearchQuerySchema,
  SearchResultsSchema,
  searchTranscriptsRpc,
} from '@chronicler/contracts';
import { call, ServiceError } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';

const bad = (message: string) => new ServiceError('bad_request', message);

/** /api/search: full-text search over the signed-in user's sessions. */
export default async function searchRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  app.get(
    '/search',
    { schema: { querystring: SearchQuerySchema, response: { 200: SearchResultsSchema } } },
    async (req) => {
      const q = (req.query.q ?? '').trim();
      if (!q) throw bad('Enter something to search for');
      if (q.length > SEARCH_QUERY_MAX) throw bad(`Search text cannot exceed ${SEARCH_QUERY_MAX} characters`);
      let limit = SEARCH_PAGE_DEFAULT;
      if (req.query.limit !== undefined) {
        limit = /^[0-9]{1,6}$/.test(req.query.limit) ? Number(req.query.limit) : NaN;
        if (!(limit >= 1 && limit <= SEARCH_PAGE_MAX)) {
          throw bad(`limit must be an integer from 1 to ${SEARCH_PAGE_MAX}`);
        }
      }
      const owner = req.user!.id;
      const group = req.query.group || undefined;
      // Another user's group (or none) answers 404 like every other id of theirs.
      if (group !== undefined && !(await call(bus, groupExistsRpc, { owner_id: owner, id: group })).exists) {
        throw new ServiceError('not_found', 'Group not found');
      }
      return call(bus, searchTranscriptsRpc, {
        owner_id: owner,
        q,
        limit,
        ...(group !== undefined ? { group_id: group } : {}),
        ...(req.query.after ? { after: req.query.after } : {}),
      });
    },
  );
}

import {
  UserStatsQuerySchema,
  UserStatsSchema,
  userStatsRpc,
  type UserStatsQuery,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';

/** The dashboard's stats window when no start is given: 30 days back from the end date. */
const DEFAULT_WINDOW_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The range a request asks for, with the defaults filled in (UTC days). Checking the dates
 * is the admin-stats service's job, so that one place words every message; here an empty
 * parameter counts as absent, and a start is derived only from an end that reads as a date.
 */
function statsRange(
  query: UserStatsQuery,
  now = Date.now(),
): {
  start: string;
  end: string;
} {
  const end = query.end || utcDay(now);
  if (query.start) return { start: query.start, end };
  const endMs = Date.parse(`${end}T00:00:00.000Z`);
  return { start: utcDay((Number.isFinite(endMs) ? endMs : now) - DEFAULT_WINDOW_DAYS * DAY_MS), end };
}

/** /api/users: the signed-in user's own figures. */
export default async function userRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;

  app.get(
    '/users/stats',
    { schema: { querystring: UserStatsQuerySchema, response: { 200: UserStatsSchema } } },
    (req) => call(bus, userStatsRpc, { owner_id: req.user!.id, ...statsRange(req.query) }),
  );
}

import { LIST_PAGE_DEFAULT, LIST_PAGE_MAX } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * `?limit=&after=` of a paged list (GET /transcripts, GET /groups). The body stays the
 * specification's JSON array; when more follows, the response carries an RFC 8288
 * `Link: <...>; rel="next"` header whose target is the next page. `limit` is read as text and
 * checked here, so that the rule (1 to LIST_PAGE_MAX, default LIST_PAGE_DEFAULT) and its
 * message do not depend on how the validator coerces query strings. A limit above the
 * maximum is refused (400), not clamped: a client that asked for more learns it at once.
 */
export const PageQuery = Type.Object({
  limit: Type.Optional(Type.String({ maxLength: 10 })),
  after: Type.Optional(Type.String({ maxLength: 1000 })),
});
export type PageQuery = Static<typeof PageQuery>;

/** The page the query asks for; a limit that is not an integer from 1 to LIST_PAGE_MAX is a 400. */
export function pageRequest(query: PageQuery): { limit: number; after?: string } {
  let limit = LIST_PAGE_DEFAULT;
  if (query.limit !== undefined) {
    limit = /^[0-9]{1,6}$/.test(query.limit) ? Number(query.limit) : NaN;
    if (!(limit >= 1 && limit <= LIST_PAGE_MAX)) {
      throw new ServiceError('bad_request', `limit must be an integer from 1 to ${LIST_PAGE_MAX}`);
    }
  }
  return query.after ? { limit, after: query.after } : { limit };
}

/**
 * Sets the `Link` header to the next page when there is one (same path, same limit, and the
 * same `filters`, so that the next page of a search is the search's next page).
 */
export function nextPageLink(
  req: FastifyRequest,
  reply: FastifyReply,
  limit: number,
  next: string | null,
  filters: Record<string, string | undefined> = {},
): void {
  if (next === null) return;
  const path = req.url.split('?')[0]!;
  const query = new URLSearchParams({ limit: String(limit), after: next });
  for (const [key, value] of Object.entries(filters)) if (value !== undefined) query.set(key, value);
  reply.header('link', `<${path}?${query.toString()}>; rel="next"`);
}

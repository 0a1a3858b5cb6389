import { Type, type TSchema } from '@sinclair/typebox';

/**
 * The refusal of an over-long text in the specification's words, the limit written with
 * thousands separators: tooLongMessage('Session summary', SUMMARY_MAX) is 'Session summary
 * cannot exceed 10,000 characters'. Services and the web both build it from the limit.
 */
export const tooLongMessage = (what: string, max: number): string =>
  `${what} cannot exceed ${max.toLocaleString('en-US')} characters`;

/** Who asks: every transcript and group call is made for one owner, never across owners. */
export const OwnerRequestSchema = Type.Object({ owner_id: Type.String({ minLength: 1 }) });

/**
 * Lists that grow without bound (sessions, groups) are read a page at a time: `limit` items
 * (LIST_PAGE_DEFAULT when absent, at most LIST_PAGE_MAX) after the cursor `after`, which is
 * the previous page's `next`; `next` is null after the last page. The cursor is the position
 * in the list's order (keyset), so a page costs O(limit) whatever the list's length.
 */
export const LIST_PAGE_DEFAULT = 100;
export const LIST_PAGE_MAX = 500;

/** The request fields of a paged list: the owner, the page size and the cursor. */
export const PageRequestFields = {
  owner_id: Type.String({ minLength: 1 }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_PAGE_MAX })),
  after: Type.Optional(Type.String({ maxLength: 1000 })),
};

/** One page of a list and the cursor of the next (null after the last). */
export const pageOf = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), next: Type.Union([Type.String(), Type.Null()]) });

/** The same owner-scoped request with the id of one session or group. */
export const OwnedIdRequestSchema = Type.Object({
  owner_id: Type.String({ minLength: 1 }),
  id: Type.String(),
});

/** The reply of a call that only has to succeed (delete). */
export const OkSchema = Type.Object({ ok: Type.Literal(true) });

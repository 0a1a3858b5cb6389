import {
  LIST_PAGE_DEFAULT,
  LIST_SEARCH_MAX,
  tooLongMessage,
  type listTranscriptsPageRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import { isUuid } from '@chronicler/kit';
import type { ListCursor } from '../db/store-rows.ts';
import type { TranscriptStore } from '../db/store.ts';
import { assertNoNul, bad } from '../validation.ts';

const encode = (c: ListCursor): string =>
  Buffer.from(JSON.stringify([c.ts, c.created, c.id])).toString('base64url');

function decode(after: string): ListCursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(after, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 3 && parsed.every((v) => typeof v === 'string')) {
      const [ts, created, id] = parsed as [string, string, string];
      if (isUuid(id) && Number.isFinite(Date.parse(ts)) && Number.isFinite(Date.parse(created))) {
        return { ts, created, id };
      }
    }
  } catch {
    // Not JSON: refused below like any other malformed cursor.
  }
  throw bad('Invalid list cursor');
}

/** svc.transcript.list-page: one page of the owner's sessions, never their content. */
export const listPage =
  (store: TranscriptStore) =>
  async (
    req: RpcRequest<typeof listTranscriptsPageRpc>,
  ): Promise<RpcResponse<typeof listTranscriptsPageRpc>> => {
    const limit = req.limit ?? LIST_PAGE_DEFAULT;
    if (req.ungrouped && req.group_id !== undefined) throw bad('group_id and ungrouped cannot be combined');
    const search = req.search?.trim() ?? '';
    if (search.length > LIST_SEARCH_MAX) throw bad(tooLongMessage('Search text', LIST_SEARCH_MAX));
    assertNoNul(search, 'Search text');
    // One row more than the page tells whether another page follows, without a count.
    const rows = await store.listPage(
      req.owner_id,
      req.after ? decode(req.after) : null,
      limit + 1,
      req.group_id,
      { ungrouped: req.ungrouped === true, ...(search ? { search } : {}) },
    );
    const page = rows.slice(0, limit);
    const next = rows.length > limit ? encode(page[page.length - 1]!.cursor) : null;
    return { items: page.map((r) => r.item), next };
  };

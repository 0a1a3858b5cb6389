import {
  LIST_PAGE_DEFAULT,
  LIST_SEARCH_MAX,
  tooLongMessage,
  type listTranscriptsPageIfChangedRpc,
  type listTranscriptsPageRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import { isUuid } from '@chronicler/kit';
import { createHash } from 'node:crypto';
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

/** A list-page request, checked: what the store reads one page with. */
type PageArgs = Parameters<TranscriptStore['listPage']>;

function pageArgs(req: RpcRequest<typeof listTranscriptsPageRpc>): PageArgs {
  const limit = req.limit ?? LIST_PAGE_DEFAULT;
  if (req.ungrouped && req.group_id !== undefined) throw bad('group_id and ungrouped cannot be combined');
  const search = req.search?.trim() ?? '';
  if (search.length > LIST_SEARCH_MAX) throw bad(tooLongMessage('Search text', LIST_SEARCH_MAX));
  assertNoNul(search, 'Search text');
  // One row more than the page tells whether another page follows, without a count.
  return [
    req.owner_id,
    req.after ? decode(req.after) : null,
    limit + 1,
    req.group_id,
    { ungrouped: req.ungrouped === true, ...(search ? { search } : {}) },
  ];
}

/** The page of `limit` items from the store's `limit + 1` rows, with the cursor past it when more follow. */
function pageOf(
  rows: Awaited<ReturnType<TranscriptStore['listPage']>>,
  limit: number,
): RpcResponse<typeof listTranscriptsPageRpc> {
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? encode(page[page.length - 1]!.cursor) : null;
  return { items: page.map((r) => r.item), next };
}

/**
 * The version of a page: a digest of its rows' versions in order, joined with ',', the row
 * past the page included (it decides whether a next page follows). Computed alike from a read
 * page and from listPageVersions' text, so that a check and a read agree.
 */
const pageVersion = (rowVersions: string): string =>
  createHash('sha256').update(rowVersions).digest('hex').slice(0, 32);

/** svc.transcript.list-page: one page of the owner's sessions, never their content. */
export const listPage =
  (store: TranscriptStore) =>
  async (
    req: RpcRequest<typeof listTranscriptsPageRpc>,
  ): Promise<RpcResponse<typeof listTranscriptsPageRpc>> =>
    pageOf(await store.listPage(...pageArgs(req)), req.limit ?? LIST_PAGE_DEFAULT);

/**
 * svc.transcript.list-page-if-changed: the same page with its version; `unchanged` when the
 * caller holds that version, found from the rows' versions alone (one short row of text from
 * PostgreSQL instead of the page). The version of a page read is that of the rows read, so a
 * write between the check and the read is in both the page and its version.
 */
export const listPageIfChanged =
  (store: TranscriptStore) =>
  async (
    req: RpcRequest<typeof listTranscriptsPageIfChangedRpc>,
  ): Promise<RpcResponse<typeof listTranscriptsPageIfChangedRpc>> => {
    const { known, ...request } = req;
    const args = pageArgs(request);
    if (known !== undefined) {
      const version = pageVersion(await store.listPageVersions(...args));
      if (version === known) return { version, unchanged: true };
    }
    const rows = await store.listPage(...args);
    // Key order: the version first, so that the caller finds the page's text after it.
    return {
      version: pageVersion(rows.map((r) => r.version).join(',')),
      page: pageOf(rows, request.limit ?? LIST_PAGE_DEFAULT),
    };
  };

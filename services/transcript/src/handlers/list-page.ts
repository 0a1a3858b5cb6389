import type {
  listTranscriptsPageRpc,
  RpcRequest,
  RpcResponse,
  TranscriptListItem,
} from '@chronicler/contracts';
import { isUuid, type ListCursor, type TranscriptStore } from '../db/store.ts';
import { bad } from '../validation.ts';

/** Rows read per page. */
const PAGE_ROWS = 1000;
/**
 * Bytes of items per page: a page is one bus message (at most 1 MiB), and a list item can
 * carry a 10,000-character summary (up to 30 KB of UTF-8), so a page is cut by size too.
 */
const PAGE_BYTES = 640 * 1024;

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
    const rows = await store.listPage(req.owner_id, req.after ? decode(req.after) : null, PAGE_ROWS);
    const items: TranscriptListItem[] = [];
    let bytes = 0;
    for (const { item } of rows) {
      bytes += Buffer.byteLength(JSON.stringify(item)) + 1;
      if (items.length > 0 && bytes > PAGE_BYTES) break;
      items.push(item);
    }
    const more = items.length < rows.length || rows.length === PAGE_ROWS;
    return { items, next: more ? encode(rows[items.length - 1]!.cursor) : null };
  };

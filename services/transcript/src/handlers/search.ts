import type { RpcRequest, RpcResponse, searchTranscriptsRpc } from '@chronicler/contracts';
import { isUuid } from '@chronicler/kit';
import type { SearchCursor, SearchStore } from '../db/search-store.ts';
import { assertNoNul, bad } from '../validation.ts';

const encode = (c: SearchCursor): string =>
  Buffer.from(JSON.stringify([c.rank, c.ts, c.id, c.kind, c.ord])).toString('base64url');

function decode(after: string): SearchCursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(after, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 5) {
      const [rank, ts, id, kind, ord] = parsed as unknown[];
      if (
        typeof rank === 'string' &&
        Number.isFinite(Number(rank)) &&
        typeof ts === 'string' &&
        Number.isFinite(Date.parse(ts)) &&
        typeof id === 'string' &&
        isUuid(id) &&
        Number.isInteger(kind) &&
        Number.isInteger(ord)
      ) {
        return { rank, ts, id, kind: kind as number, ord: ord as number };
      }
    }
  } catch {
    // Not JSON: refused below like any other malformed cursor.
  }
  throw bad('Invalid search cursor');
}

/** svc.transcript.search: one page of ranked hits in the owner's sessions. */
export const search =
  (store: SearchStore) =>
  async (req: RpcRequest<typeof searchTranscriptsRpc>): Promise<RpcResponse<typeof searchTranscriptsRpc>> => {
    const q = req.q.trim();
    if (!q) throw bad('Enter something to search for');
    assertNoNul(q, 'Search');
    // A group id that is not a uuid names no group of anyone's: nothing in it.
    if (req.group_id !== undefined && !isUuid(req.group_id)) return { hits: [], next: null };
    const after = req.after ? decode(req.after) : null;
    // One row more than the page tells whether another page follows, without a count.
    const rows = await store.search(req.owner_id, q, req.group_id ?? null, after, req.limit + 1);
    // Nothing found for words search skips: say so, and what to try, rather than "No results".
    if (rows.length === 0 && !after && (await store.onlyCommonWords(q))) {
      throw bad(
        `“${q.length > 60 ? `${q.slice(0, 60)}…` : q}” holds only common words (like “the”, “and”, “of”), which search skips. Search for a name, a place or a rarer word instead.`,
      );
    }
    const page = rows.slice(0, req.limit);
    const next = rows.length > req.limit ? encode(page[page.length - 1]!.cursor) : null;
    return { hits: page.map((r) => r.hit), next };
  };

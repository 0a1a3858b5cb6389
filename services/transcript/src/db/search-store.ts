import type { SearchFragment, SearchHit, SearchHitKind } from '@chronicler/contracts';
import { formatOffset } from '@chronicler/contracts';
import type { DatabaseHandle } from '@chronicler/kit';

/** A position in the ranked hits: the last hit of a page. */
export interface SearchCursor {
  rank: string;
  ts: string;
  id: string;
  kind: number;
  ord: number;
}

const KINDS: SearchHitKind[] = ['name', 'summary', 'notes', 'line'];
// Private-use characters mark the highlighted words: they cannot be mistaken for markup,
// and the answer carries fragments, not HTML.
const START = '\uE000';
const STOP = '\uE001';
const HEADLINE_OPTIONS = `StartSel=${START}, StopSel=${STOP}, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`;

/** ts_headline's text, split at its markers. */
function fragments(headline: string): SearchFragment[] {
  const out: SearchFragment[] = [];
  for (const [i, part] of headline.split(START).entries()) {
    const [matched, rest] = i === 0 ? [undefined, part] : splitOnce(part);
    if (matched) out.push({ text: matched, match: true });
    if (rest) out.push({ text: rest, match: false });
  }
  return out;
}

function splitOnce(part: string): [string, string] {
  const at = part.indexOf(STOP);
  return at === -1 ? [part, ''] : [part.slice(0, at), part.slice(at + 1)];
}

/** Where a hit leads in the web app: the line's moment, the line, the notes, or the session. */
function hitLink(id: string, kind: SearchHitKind, ord: number, seconds: number | null): string {
  if (kind === 'notes') return `/sessions/${id}/notes`;
  if (kind !== 'line') return `/sessions/${id}`;
  return seconds !== null ? `/sessions/${id}#t=${formatOffset(seconds)}` : `/sessions/${id}#line=${ord}`;
}

/**
 * Full-text search over the search_entries rows of the owner's sessions (see migration
 * 0013): websearch_to_tsquery, ranked by ts_rank (a name above a summary above notes above a
 * line), then newest session first. The GIN index finds the matching entries; the page is
 * cut by a keyset cursor, and ts_headline runs only on the page's rows, each one line long.
 */
export class SearchStore {
  private readonly entries: string;
  private readonly transcripts: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.entries = `"${schema}".search_entries`;
    this.transcripts = `"${schema}".transcripts`;
  }

  /** Whether a query holds only words search skips ('the', 'and of'): it can match nothing. */
  async onlyCommonWords(query: string): Promise<boolean> {
    const [r] = await this.db.query<{ n: number }>(
      `select numnode(websearch_to_tsquery('english', $1)) as n`,
      [query],
    );
    return Number(r?.n ?? 0) === 0;
  }

  async search(
    ownerId: string,
    query: string,
    groupId: string | null,
    after: SearchCursor | null,
    limit: number,
  ): Promise<{ hit: SearchHit; cursor: SearchCursor }[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `with q as (select websearch_to_tsquery('english', $2) as q),
       ranked as (
         select e.transcript_id, e.kind, e.ord, e.seconds, e.body, ts_rank(e.tsv, q.q) as rank,
                t.name, t.group_id, t.session_timestamp
           from ${this.entries} e
           join ${this.transcripts} t on t.id = e.transcript_id, q
          where e.tsv @@ q.q and t.owner_id = $1
            and ($3::uuid is null or t.group_id = $3::uuid)
       ),
       page as (
         select * from ranked
          where $4::real is null
             or rank < $4::real
             or (rank = $4::real and (session_timestamp < $5::timestamptz
                 or (session_timestamp = $5::timestamptz and (transcript_id < $6::uuid
                     or (transcript_id = $6::uuid and (kind, ord) > ($7::smallint, $8::int))))))
          order by rank desc, session_timestamp desc, transcript_id desc, kind, ord
          limit $9
       )
       select p.transcript_id, p.kind, p.ord, p.seconds, p.rank, p.rank::text as rank_key, p.name,
              p.group_id, p.session_timestamp, p.session_timestamp::text as ts_key,
              ts_headline('english', p.body, q.q, '${HEADLINE_OPTIONS}') as headline
         from page p, q
        order by p.rank desc, p.session_timestamp desc, p.transcript_id desc, p.kind, p.ord`,
      [
        ownerId,
        query,
        groupId,
        after?.rank ?? null,
        after?.ts ?? null,
        after?.id ?? null,
        after?.kind ?? null,
        after?.ord ?? null,
        limit,
      ],
    );
    return rows.map((r) => {
      const id = String(r.transcript_id);
      const kind = KINDS[Number(r.kind)] ?? 'line';
      const ord = Number(r.ord);
      const seconds = r.seconds === null || r.seconds === undefined ? null : Number(r.seconds);
      const ts = r.session_timestamp;
      return {
        hit: {
          transcript_id: id,
          transcript_name: String(r.name),
          group_id: r.group_id ? String(r.group_id) : '',
          session_timestamp: (ts instanceof Date ? ts : new Date(String(ts))).toISOString(),
          kind,
          line: kind === 'line' ? ord : null,
          seconds: kind === 'line' ? seconds : null,
          headline: fragments(String(r.headline)),
          link: hitLink(id, kind, ord, seconds),
          rank: Number(r.rank),
        },
        cursor: { rank: String(r.rank_key), ts: String(r.ts_key), id, kind: Number(r.kind), ord },
      };
    });
  }
}

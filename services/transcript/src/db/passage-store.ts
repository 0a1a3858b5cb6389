import { isUuid, type DatabaseHandle } from '@chronicler/kit';

/** A session passages are looked for in. */
export interface ScopeSession {
  id: string;
  name: string;
  session_timestamp: string;
  group_id: string;
}

/**
 * One line's entry in the full-text index (kind 3 of search_entries): where it is, what it says,
 * how often each question term occurs in it (PostgreSQL's own lexemes, read from its tsvector)
 * and its length in distinct lexemes.
 */
export interface IndexedLine {
  tid: string;
  ord: number;
  seconds: number | null;
  body: string;
  tf: Record<string, number>;
  len: number;
}

// A lexeme as to_tsvector('english') writes it and a tsquery takes it unquoted.
const PLAIN_LEXEME = /^[\p{L}\p{N}]+$/u;

/**
 * The reads behind passages, all on the index search keeps (migration 0013_search): one row
 * per non-blank line with its tsvector under a GIN index, so finding the lines that share a
 * word with a question costs what the matching lines cost, never a whole transcript.
 */
export class PassageStore {
  private readonly entries: string;
  private readonly transcripts: string;
  private readonly names: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.entries = `"${schema}".search_entries`;
    this.transcripts = `"${schema}".transcripts`;
    this.names = `"${schema}".speaker_names`;
  }

  /** One of the owner's sessions, or every session of one of their groups, oldest first. */
  async scope(ownerId: string, by: { transcriptId?: string; groupId?: string }): Promise<ScopeSession[]> {
    const id = by.transcriptId ?? by.groupId ?? '';
    if (!isUuid(id)) return [];
    const rows = await this.db.query<Record<string, unknown>>(
      `select id, name, session_timestamp, group_id from ${this.transcripts}
        where owner_id = $1 and ${by.transcriptId ? 'id' : 'group_id'} = $2::uuid
        order by session_timestamp, id`,
      [ownerId, id],
    );
    return rows.map((r) => ({
      id: String(r.id),
      name: String(r.name),
      session_timestamp: new Date(String(r.session_timestamp)).toISOString(),
      group_id: r.group_id ? String(r.group_id) : '',
    }));
  }

  /** The question's terms as the index holds them: english stems, stop words dropped. */
  async lexemes(words: string[]): Promise<string[]> {
    if (words.length === 0) return [];
    const [r] = await this.db.query<{ lexemes: string[] }>(
      `select coalesce(array_agg(distinct l), '{}') as lexemes
         from unnest(tsvector_to_array(to_tsvector('english', $1))) as l`,
      [words.join(' ')],
    );
    return (r?.lexemes ?? []).filter((l) => PLAIN_LEXEME.test(l));
  }

  /** Lines in the sessions, and in how many of them each lexeme occurs (the GIN index answers). */
  async stats(ids: string[], lexemes: string[]): Promise<{ lines: number; df: Map<string, number> }> {
    const [total] = await this.db.query<{ n: string }>(
      `select count(*) as n from ${this.entries} where transcript_id = any($1::uuid[]) and kind = 3`,
      [ids],
    );
    const rows = lexemes.length
      ? await this.db.query<{ lexeme: string; df: string }>(
          `select l as lexeme,
                  (select count(*) from ${this.entries} e
                    where e.transcript_id = any($1::uuid[]) and e.kind = 3 and e.tsv @@ l::tsquery) as df
             from unnest($2::text[]) as l`,
          [ids, lexemes],
        )
      : [];
    return { lines: Number(total?.n ?? 0), df: new Map(rows.map((r) => [r.lexeme, Number(r.df)])) };
  }

  /**
   * The lines holding any of `search` (best first by ts_rank, at most `cap`), each with the
   * counts of every lexeme of `terms` it holds.
   */
  async matching(ids: string[], search: string[], terms: string[], cap: number): Promise<IndexedLine[]> {
    if (search.length === 0) return [];
    const rows = await this.db.query<Record<string, unknown>>(
      `select e.transcript_id, e.ord, e.seconds, e.body, length(e.tsv) as len,
              (select coalesce(jsonb_object_agg(u.lexeme, coalesce(array_length(u.positions, 1), 1)), '{}')
                 from unnest(e.tsv) u where u.lexeme = any($3::text[])) as tf
         from ${this.entries} e
        where e.transcript_id = any($1::uuid[]) and e.kind = 3 and e.tsv @@ $2::tsquery
        order by ts_rank(e.tsv, $2::tsquery) desc, e.transcript_id, e.ord
        limit $4`,
      [ids, search.join(' | '), terms, cap],
    );
    return rows.map(toLine);
  }

  /** The lines `radius` either side of each of `around` (themselves included), with their counts. */
  async around(
    around: { tid: string; ord: number }[],
    radius: number,
    terms: string[],
  ): Promise<IndexedLine[]> {
    if (around.length === 0) return [];
    const rows = await this.db.query<Record<string, unknown>>(
      `select distinct on (e.transcript_id, e.ord) e.transcript_id, e.ord, e.seconds, e.body,
              length(e.tsv) as len,
              (select coalesce(jsonb_object_agg(u.lexeme, coalesce(array_length(u.positions, 1), 1)), '{}')
                 from unnest(e.tsv) u where u.lexeme = any($4::text[])) as tf
         from unnest($1::uuid[], $2::int[]) as c(tid, ord)
         join ${this.entries} e
           on e.transcript_id = c.tid and e.kind = 3 and e.ord between c.ord - $3::int and c.ord + $3::int
        order by e.transcript_id, e.ord`,
      [around.map((a) => a.tid), around.map((a) => a.ord), radius, terms],
    );
    return rows.map(toLine);
  }

  /** Characters of the sessions' lines, to tell whether one session fits a model whole. */
  async chars(ids: string[]): Promise<number> {
    const [r] = await this.db.query<{ n: string | null }>(
      `select sum(length(body)) as n from ${this.entries} where transcript_id = any($1::uuid[]) and kind = 3`,
      [ids],
    );
    return Number(r?.n ?? 0);
  }

  /** Every line of the sessions, in order (for a session that fits whole, or who talks most). */
  async all(ids: string[]): Promise<IndexedLine[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `select transcript_id, ord, seconds, body from ${this.entries}
        where transcript_id = any($1::uuid[]) and kind = 3 order by transcript_id, ord`,
      [ids],
    );
    return rows.map((r) => toLine({ ...r, len: 0, tf: {} }));
  }

  /** Display names per session and speaker label (the stored lines keep their labels). */
  async speakerNames(ids: string[]): Promise<Map<string, Map<string, string>>> {
    const rows = await this.db.query<{ transcript_id: string; label: string; name: string }>(
      `select transcript_id, label, name from ${this.names} where transcript_id = any($1::uuid[])`,
      [ids],
    );
    const out = new Map<string, Map<string, string>>();
    for (const r of rows) {
      const id = String(r.transcript_id);
      if (!out.has(id)) out.set(id, new Map());
      out.get(id)!.set(r.label, r.name);
    }
    return out;
  }
}

function toLine(r: Record<string, unknown>): IndexedLine {
  const tf = typeof r.tf === 'string' ? (JSON.parse(r.tf) as Record<string, number>) : r.tf;
  return {
    tid: String(r.transcript_id),
    ord: Number(r.ord),
    seconds: r.seconds === null || r.seconds === undefined ? null : Number(r.seconds),
    body: String(r.body),
    tf: (tf ?? {}) as Record<string, number>,
    len: Number(r.len ?? 0),
  };
}

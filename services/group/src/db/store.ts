import { isUuid, type DatabaseHandle, type Queryable } from '@chronicler/kit';
import { SummaryVersionStore } from './summary-versions.ts';

const COLUMNS = 'id, name, summary, llm_summary, summary_generated_at';

function toRow(r: Record<string, unknown>): GroupRow {
  return {
    id: String(r.id),
    name: String(r.name),
    summary: String(r.summary),
    llm_summary: String(r.llm_summary),
    summary_generated_at: r.summary_generated_at
      ? new Date(String(r.summary_generated_at)).toISOString()
      : null,
  };
}

/** A text[] as the driver answers it: node-postgres and PGlite both parse it to an array. */
function toTerms(value: unknown): string[] {
  if (!Array.isArray(value)) throw new Error('groups.vocabulary did not come back as an array');
  return value.map(String);
}

/** A position in the group list: the last group of a page. */
export interface GroupCursor {
  created: string;
  id: string;
}

export interface GroupRow {
  id: string;
  name: string;
  summary: string;
  llm_summary: string;
  summary_generated_at: string | null;
}

/** Every query of the group schema, so handlers never spell SQL. */
export class GroupStore {
  private readonly table: string;
  readonly versions: SummaryVersionStore;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".groups`;
    this.versions = new SummaryVersionStore(db, schema);
  }

  /**
   * Up to `limit` of the owner's groups in list order (oldest first, ties by id) after the
   * cursor, each with the cursor that points past it. The cursor keeps created_at as
   * PostgreSQL's own text, which round-trips its microseconds; the index groups_owner_list
   * serves both the order and the cursor.
   */
  async listPage(
    ownerId: string,
    after: GroupCursor | null,
    limit: number,
  ): Promise<{ row: GroupRow; cursor: GroupCursor }[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `select ${COLUMNS}, created_at::text as created_key from ${this.table}
        where owner_id = $1 and ($2::timestamptz is null or (created_at, id) > ($2::timestamptz, $3::uuid))
        order by created_at, id
        limit $4`,
      [ownerId, after?.created ?? null, after?.id ?? null, limit],
    );
    return rows.map((r) => ({ row: toRow(r), cursor: { created: String(r.created_key), id: String(r.id) } }));
  }

  /** One of the owner's groups, or null. */
  async get(ownerId: string, id: string): Promise<GroupRow | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `select ${COLUMNS} from ${this.table} where id = $1 and owner_id = $2`,
      [id, ownerId],
    );
    return r ? toRow(r) : null;
  }

  async create(ownerId: string, name: string): Promise<GroupRow> {
    const [r] = await this.db.query<Record<string, unknown>>(
      `insert into ${this.table} (owner_id, name) values ($1, $2) returning ${COLUMNS}`,
      [ownerId, name],
    );
    return toRow(r!);
  }

  /**
   * Name and/or summary; a field left undefined keeps its value. A summary that changes is the
   * owner's text from now on, and the one it replaces is kept as a version first.
   */
  async update(
    ownerId: string,
    id: string,
    c: { name?: string; summary?: string },
  ): Promise<GroupRow | null> {
    if (!isUuid(id)) return null;
    return this.db.transaction(async (tx) => {
      if (c.summary !== undefined) await this.versions.keep(tx, ownerId, id, c.summary, 'edit');
      const [r] = await tx.query<Record<string, unknown>>(
        `update ${this.table} set name = coalesce($3::text, name), summary = coalesce($4::text, summary),
                summary_source = case when $4::text is distinct from summary and $4::text is not null
                                      then 'hand' else summary_source end
          where id = $1 and owner_id = $2 returning ${COLUMNS}`,
        [id, ownerId, c.name ?? null, c.summary ?? null],
      );
      return r ? toRow(r) : null;
    });
  }

  /** A generated campaign summary: the shown one, the model's raw text, and when; the replaced text is kept. */
  async setGeneratedSummary(
    ownerId: string,
    id: string,
    summary: string,
    llmSummary: string,
  ): Promise<GroupRow | null> {
    if (!isUuid(id)) return null;
    return this.db.transaction(async (tx) => {
      await this.versions.keep(tx, ownerId, id, summary, 'generation');
      const [r] = await tx.query<Record<string, unknown>>(
        `update ${this.table} set summary = $3, llm_summary = $4, summary_generated_at = now(),
                summary_source = 'generated'
          where id = $1 and owner_id = $2 returning ${COLUMNS}`,
        [id, ownerId, summary, llmSummary],
      );
      return r ? toRow(r) : null;
    });
  }

  /** The user's vocabulary of one of the owner's groups with its campaign summary, or null. */
  async getVocabulary(ownerId: string, id: string): Promise<{ terms: string[]; summary: string } | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<{ vocabulary: unknown; summary: string }>(
      `select vocabulary, summary from ${this.table} where id = $1 and owner_id = $2`,
      [id, ownerId],
    );
    return r ? { terms: toTerms(r.vocabulary), summary: String(r.summary) } : null;
  }

  /** Replaces the vocabulary (already checked); null when it is not one of the owner's groups. */
  async setVocabulary(ownerId: string, id: string, terms: string[]): Promise<string[] | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<{ vocabulary: unknown }>(
      `update ${this.table} set vocabulary = $3::text[] where id = $1 and owner_id = $2 returning vocabulary`,
      [id, ownerId, terms],
    );
    return r ? toTerms(r.vocabulary) : null;
  }

  /**
   * Whether the id is one of the owner's groups. FOR KEY SHARE waits for a delete of the row
   * that is in flight (see deleteWithin) and then answers false, so no caller is told that a
   * group exists whose deletion is about to commit.
   */
  async exists(ownerId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await this.db.query<{ id: string }>(
      `select id from ${this.table} where id = $1 and owner_id = $2 for key share`,
      [id, ownerId],
    );
    return rows.length > 0;
  }

  /**
   * Deletes the group in a transaction and runs `beforeCommit` in it (writing the deletion's
   * event to the outbox): both commit or neither. Answers false, without calling
   * `beforeCommit`, when there is no such group.
   */
  async deleteWithin(
    ownerId: string,
    id: string,
    beforeCommit: (tx: Queryable) => Promise<void>,
  ): Promise<boolean> {
    if (!isUuid(id) || !isUuid(ownerId)) return false;
    return this.db.transaction(async (tx) => {
      const rows = await tx.query(`delete from ${this.table} where id = $1 and owner_id = $2 returning id`, [
        id,
        ownerId,
      ]);
      if (rows.length === 0) return false;
      await beforeCommit(tx);
      return true;
    });
  }

  async delete(ownerId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await this.db.query<{ id: string }>(
      `delete from ${this.table} where id = $1 and owner_id = $2 returning id`,
      [id, ownerId],
    );
    return rows.length > 0;
  }
}

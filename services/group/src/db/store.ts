import type { DatabaseHandle } from '@chronicler/kit';

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
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".groups`;
  }

  async list(ownerId: string): Promise<GroupRow[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `select id, name, summary, llm_summary, summary_generated_at
         from ${this.table} where owner_id = $1 order by created_at, id`,
      [ownerId],
    );
    return rows.map((r) => ({
      id: String(r.id),
      name: String(r.name),
      summary: String(r.summary),
      llm_summary: String(r.llm_summary),
      summary_generated_at: r.summary_generated_at
        ? new Date(String(r.summary_generated_at)).toISOString()
        : null,
    }));
  }
}

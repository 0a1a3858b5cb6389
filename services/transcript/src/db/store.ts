import type { TranscriptListItem } from '@chronicler/contracts';
import type { DatabaseHandle } from '@chronicler/kit';

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

/** Every query of the transcript schema, so handlers never spell SQL. */
export class TranscriptStore {
  private readonly table: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".transcripts`;
  }

  /** The owner's sessions without their content, newest first. */
  async list(ownerId: string): Promise<TranscriptListItem[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `select id, name, session_timestamp, created_at, last_activity, status, group_id, summary, preview
         from ${this.table} where owner_id = $1
        order by session_timestamp desc, created_at desc`,
      [ownerId],
    );
    return rows.map((r) => ({
      id: String(r.id),
      name: String(r.name),
      session_timestamp: iso(r.session_timestamp),
      created_at: iso(r.created_at),
      last_activity: iso(r.last_activity),
      status: r.status === 'active' ? 'active' : 'ended',
      group_id: r.group_id ? String(r.group_id) : '',
      summary: String(r.summary),
      preview: String(r.preview),
    }));
  }

  async groupMembers(ownerId: string): Promise<Record<string, string[]>> {
    const rows = await this.db.query<{ group_id: string; ids: string[] }>(
      `select group_id, array_agg(id::text order by session_timestamp desc) as ids
         from ${this.table} where owner_id = $1 and group_id is not null
        group by group_id`,
      [ownerId],
    );
    return Object.fromEntries(rows.map((r) => [String(r.group_id), r.ids]));
  }
}

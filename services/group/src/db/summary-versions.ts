import type { SummaryVersion, SummaryVersionList } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle, type Queryable } from '@chronicler/kit';

type ReplacedBy = SummaryVersion['replaced_by'];

const iso = (v: unknown): string | null => (v ? new Date(String(v)).toISOString() : null);

/** The kept versions of campaign summaries (migration 0008), read and written for their owner only. */
export class SummaryVersionStore {
  private readonly groups: string;
  private readonly versions: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.groups = `"${schema}".groups`;
    this.versions = `"${schema}".summary_versions`;
  }

  /**
   * Inside the transaction that writes `next` as the group's summary: locks the group's row and
   * keeps the text it shows now as a version, unless it is blank or `next` is the same text.
   */
  async keep(tx: Queryable, ownerId: string, groupId: string, next: string, by: ReplacedBy): Promise<void> {
    await tx.query(`select 1 from ${this.groups} where id = $1 and owner_id = $2 for update`, [
      groupId,
      ownerId,
    ]);
    await tx.query(
      `insert into ${this.versions} (group_id, summary, llm_summary, source, generated_at, replaced_by)
       select id, summary, llm_summary, summary_source, summary_generated_at, $4 from ${this.groups}
        where id = $1 and owner_id = $2 and btrim(summary) <> '' and summary is distinct from $3`,
      [groupId, ownerId, next, by],
    );
  }

  /** The group's versions, newest first, with who wrote its summary now; null when not the owner's group. */
  async list(ownerId: string, groupId: string, limit: number): Promise<SummaryVersionList | null> {
    if (!isUuid(groupId)) return null;
    const [group] = await this.db.query<{
      summary: string;
      summary_source: string;
      summary_generated_at: unknown;
    }>(
      `select summary, summary_source, summary_generated_at from ${this.groups} where id = $1 and owner_id = $2`,
      [groupId, ownerId],
    );
    if (!group) return null;
    const rows = await this.db.query<Record<string, unknown>>(
      `select id, summary, source, generated_at, replaced_at, replaced_by, count(*) over () as total
         from ${this.versions} where group_id = $1 order by replaced_at desc, id desc limit $2`,
      [groupId, limit],
    );
    const shown = String(group.summary).trim() !== '';
    return {
      versions: rows.map((r) => ({
        id: String(r.id),
        summary: String(r.summary),
        source: r.source === 'generated' ? 'generated' : 'hand',
        generated_at: iso(r.generated_at),
        replaced_at: iso(r.replaced_at)!,
        replaced_by: String(r.replaced_by) as ReplacedBy,
      })),
      total: rows.length > 0 ? Number(rows[0]!.total) : 0,
      current_source: shown ? (group.summary_source === 'generated' ? 'generated' : 'hand') : null,
      // The check replaces a text only once one was generated (see the summary service's rule).
      replaced_on_change: shown && group.summary_generated_at !== null,
    };
  }

  /**
   * The version's text, source and generation time become the group's again (a text written by
   * hand and never generated is again one the automatic check leaves alone), the text shown now
   * kept as a version first. False when the group or the version is not the owner's.
   */
  async restore(ownerId: string, groupId: string, versionId: string): Promise<boolean> {
    if (!isUuid(groupId) || !isUuid(versionId)) return false;
    return this.db.transaction(async (tx) => {
      const [v] = await tx.query<Record<string, unknown>>(
        `select v.summary, v.llm_summary, v.source, v.generated_at from ${this.versions} v
           join ${this.groups} g on g.id = v.group_id
          where v.id = $1 and v.group_id = $2 and g.owner_id = $3`,
        [versionId, groupId, ownerId],
      );
      if (!v) return false;
      await this.keep(tx, ownerId, groupId, String(v.summary), 'restore');
      await tx.query(
        `update ${this.groups}
            set summary = $3, llm_summary = $4, summary_source = $5,
                summary_generated_at = $6::timestamptz
          where id = $1 and owner_id = $2`,
        [groupId, ownerId, v.summary, v.llm_summary, v.source, v.generated_at ?? null],
      );
      return true;
    });
  }
}

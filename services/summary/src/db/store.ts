import type { DatabaseHandle } from '@chronicler/kit';

/** The summary service's one table: what each campaign summary was generated from. */
export class SummaryStore {
  private readonly table: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".campaign_sources`;
  }

  async fingerprint(ownerId: string, groupId: string): Promise<string | null> {
    const [r] = await this.db.query<{ fingerprint: string }>(
      `select fingerprint from ${this.table} where group_id = $1 and owner_id = $2`,
      [groupId, ownerId],
    );
    return r ? r.fingerprint : null;
  }

  async setFingerprint(ownerId: string, groupId: string, fingerprint: string): Promise<void> {
    await this.db.query(
      `insert into ${this.table} (group_id, owner_id, fingerprint) values ($1, $2, $3)
       on conflict (group_id) do update set fingerprint = excluded.fingerprint, generated_at = now()`,
      [groupId, ownerId, fingerprint],
    );
  }
}

import type { DatabaseHandle } from '@chronicler/kit';

/** The summary service's tables: what each campaign summary was made from, each session's last recap. */
export class SummaryStore {
  private readonly table: string;
  private readonly recaps: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".campaign_sources`;
    this.recaps = `"${schema}".session_recaps`;
    this.stories = `"${schema}".story_cache`;
  }

  private readonly stories: string;

  /** A story made before from the same things (see handlers/stories.ts), or null. */
  async story(ownerId: string, key: string): Promise<string | null> {
    const [r] = await this.db.query<{ text: string }>(
      `select text from ${this.stories} where key = $1 and owner_id = $2`,
      [key, ownerId],
    );
    return r ? r.text : null;
  }

  async setStory(ownerId: string, key: string, text: string): Promise<void> {
    await this.db.query(
      `insert into ${this.stories} (key, owner_id, text) values ($1, $2, $3)
       on conflict (key) do update set text = excluded.text, created_at = now()`,
      [key, ownerId, text],
    );
    await this.db.query(`delete from ${this.stories} where created_at < now() - interval '30 days'`);
  }

  /** The owner's stored recap of this session at this version, or null. */
  async recap(ownerId: string, transcriptId: string, version: string): Promise<string | null> {
    const [r] = await this.db.query<{ summary: string }>(
      `select summary from ${this.recaps} where transcript_id = $1 and owner_id = $2 and version = $3`,
      [transcriptId, ownerId, version],
    );
    return r ? r.summary : null;
  }

  async setRecap(ownerId: string, transcriptId: string, version: string, summary: string): Promise<void> {
    await this.db.query(
      `insert into ${this.recaps} (transcript_id, owner_id, version, summary) values ($1, $2, $3, $4)
       on conflict (transcript_id) do update set version = excluded.version, summary = excluded.summary, created_at = now()
       where ${this.recaps}.owner_id = excluded.owner_id`,
      [transcriptId, ownerId, version, summary],
    );
  }

  /** Forgets a session's recap (a member's part of it was removed: it was made from their lines). */
  async dropRecap(transcriptId: string): Promise<void> {
    await this.db.query(`delete from ${this.recaps} where transcript_id = $1`, [transcriptId]);
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

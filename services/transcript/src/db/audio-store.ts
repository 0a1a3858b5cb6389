import { isUuid, type DatabaseHandle } from '@chronicler/kit';

/** A recording kept with its session (migration 0013_audio). */
export interface KeptAudio {
  blob: string;
  size: number;
  format: string;
}

/** The kept-recording columns of the transcripts table; every query filters by owner. */
export class AudioStore {
  private readonly table: string;
  private readonly settings: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".transcripts`;
    this.settings = `"${schema}".audio_settings`;
  }

  /** The owner's retention (null: forever) and what their kept recordings take. */
  async settingsOf(
    ownerId: string,
  ): Promise<{ retention_days: number | null; used_bytes: number; sessions_with_audio: number }> {
    const [r] = await this.db.query<{ days: number | null; bytes: string | number; n: string | number }>(
      `select (select retention_days from ${this.settings} where owner_id = $1) as days,
              coalesce(sum(kept_audio_size), 0) as bytes, count(*) as n
         from ${this.table} where owner_id = $1 and kept_audio_blob <> ''`,
      [ownerId],
    );
    return {
      retention_days: r?.days ?? null,
      used_bytes: Number(r?.bytes ?? 0),
      sessions_with_audio: Number(r?.n ?? 0),
    };
  }

  async setRetention(ownerId: string, days: number | null): Promise<void> {
    await this.db.query(
      `insert into ${this.settings} (owner_id, retention_days) values ($1, $2)
       on conflict (owner_id) do update set retention_days = excluded.retention_days`,
      [ownerId, days],
    );
  }

  /** Every owner's kept recordings together (the admin's figure). */
  async usage(): Promise<{ used_bytes: number; sessions_with_audio: number; owners: number }> {
    const [r] = await this.db.query<{ bytes: string | number; n: string | number; owners: string | number }>(
      `select coalesce(sum(kept_audio_size), 0) as bytes, count(*) as n, count(distinct owner_id) as owners
         from ${this.table} where kept_audio_blob <> ''`,
    );
    return {
      used_bytes: Number(r?.bytes ?? 0),
      sessions_with_audio: Number(r?.n ?? 0),
      owners: Number(r?.owners ?? 0),
    };
  }

  /** Kept recordings past their owner's retention, a batch at a time. */
  async expired(limit: number): Promise<{ owner_id: string; id: string; blob: string }[]> {
    return this.db.query<{ owner_id: string; id: string; blob: string }>(
      `select t.owner_id::text as owner_id, t.id::text as id, t.kept_audio_blob as blob
         from ${this.table} t join ${this.settings} s on s.owner_id = t.owner_id
        where t.kept_audio_blob <> '' and s.retention_days is not null
          and t.kept_audio_at < now() - make_interval(days => s.retention_days)
        limit $1`,
      [limit],
    );
  }

  /** Forgets a kept recording (its blob is deleted by the caller first). */
  async forget(ownerId: string, id: string, blob: string): Promise<void> {
    await this.db.query(
      `update ${this.table} set kept_audio_blob = '', kept_audio_size = 0, kept_audio_format = '', kept_audio_at = null
        where id = $1 and owner_id = $2 and kept_audio_blob = $3`,
      [id, ownerId, blob],
    );
  }

  async keep(ownerId: string, id: string, audio: KeptAudio): Promise<boolean> {
    const rows = await this.db.query(
      `update ${this.table}
          set kept_audio_blob = $3, kept_audio_size = $4, kept_audio_format = $5, kept_audio_at = now()
        where id = $1 and owner_id = $2 returning id`,
      [id, ownerId, audio.blob, audio.size, audio.format],
    );
    return rows.length > 0;
  }

  /** The session's kept recording; null when none, or when the session is not the owner's. */
  async kept(ownerId: string, id: string): Promise<KeptAudio | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<{ b: string; s: string | number; f: string }>(
      `select kept_audio_blob as b, kept_audio_size as s, kept_audio_format as f
         from ${this.table} where id = $1 and owner_id = $2`,
      [id, ownerId],
    );
    return r && r.b ? { blob: r.b, size: Number(r.s), format: r.f } : null;
  }

  /** Whether the session is the owner's. */
  async owns(ownerId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    return (
      (await this.db.query(`select 1 from ${this.table} where id = $1 and owner_id = $2`, [id, ownerId]))
        .length > 0
    );
  }
}

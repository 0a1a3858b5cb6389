import { isUuid, type DatabaseHandle } from '@chronicler/kit';

/** A recording kept with its session (migration 0013_audio). */
export interface KeptAudio {
  blob: string;
  size: number;
  format: string;
}

/** One speaker's track of a session the voice bot recorded (migration 0014_audio_tracks). */
export interface KeptTrack extends KeptAudio {
  speaker: string;
  /** The Discord user whose voice it is, when known (migration 0015_member_data). */
  userId?: string | null;
}

/** The kept-recording columns of the transcripts table; every query filters by owner. */
export class AudioStore {
  private readonly table: string;
  private readonly settings: string;
  private readonly tracks: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".transcripts`;
    this.settings = `"${schema}".audio_settings`;
    this.tracks = `"${schema}".audio_tracks`;
  }

  /** Every kept recording, an upload's or a speaker's track: owner, session, blob, size, when. */
  private get allKept(): string {
    return `(select owner_id, id as transcript_id, kept_audio_blob as blob, kept_audio_size as size,
                    kept_audio_at as kept_at
               from ${this.table} where kept_audio_blob <> ''
             union all
             select owner_id, transcript_id, blob, size, kept_at from ${this.tracks})`;
  }

  /** The owner's retention (null: forever) and what their kept recordings take. */
  async settingsOf(
    ownerId: string,
  ): Promise<{ retention_days: number | null; used_bytes: number; sessions_with_audio: number }> {
    const [r] = await this.db.query<{ days: number | null; bytes: string | number; n: string | number }>(
      `select (select retention_days from ${this.settings} where owner_id = $1) as days,
              coalesce(sum(size), 0) as bytes, count(distinct transcript_id) as n
         from ${this.allKept} k where owner_id = $1`,
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
      `select coalesce(sum(size), 0) as bytes, count(distinct transcript_id) as n,
              count(distinct owner_id) as owners
         from ${this.allKept} k`,
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
      `select k.owner_id::text as owner_id, k.transcript_id::text as id, k.blob
         from ${this.allKept} k join ${this.settings} s on s.owner_id = k.owner_id
        where s.retention_days is not null
          and k.kept_at < now() - make_interval(days => s.retention_days)
        limit $1`,
      [limit],
    );
  }

  /** Forgets a kept recording, an upload's or a track (its blob is deleted by the caller first). */
  async forget(ownerId: string, id: string, blob: string): Promise<void> {
    await this.db.query(
      `delete from ${this.tracks} where transcript_id = $1 and owner_id = $2 and blob = $3`,
      [id, ownerId, blob],
    );
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

  /** The speakers' tracks of the owner's session, by label ([] when none or not theirs). */
  async tracksOf(ownerId: string, id: string): Promise<KeptTrack[]> {
    if (!isUuid(id)) return [];
    const rows = await this.db.query<{
      speaker: string;
      blob: string;
      size: string | number;
      format: string;
    }>(
      `select speaker, blob, size, format from ${this.tracks}
        where transcript_id = $1 and owner_id = $2 order by speaker`,
      [id, ownerId],
    );
    return rows.map((r) => ({ speaker: r.speaker, blob: r.blob, size: Number(r.size), format: r.format }));
  }

  /**
   * Records a speaker's track of the owner's session: 'kept' (again, for the same blob),
   * 'taken' (the label has another blob), or 'missing' (no such session of theirs).
   */
  async keepTrack(ownerId: string, id: string, t: KeptTrack): Promise<'kept' | 'taken' | 'missing'> {
    if (!isUuid(id)) return 'missing';
    const rows = await this.db.query(
      `insert into ${this.tracks} (transcript_id, owner_id, speaker, blob, size, format, user_id)
       select id, owner_id, $3, $4, $5, $6, $7 from ${this.table} where id = $1 and owner_id = $2
       on conflict (transcript_id, speaker) do update
          set size = excluded.size, format = excluded.format, kept_at = now()
        where ${this.tracks}.blob = excluded.blob
       returning 1`,
      [id, ownerId, t.speaker, t.blob, t.size, t.format, t.userId ?? null],
    );
    if (rows.length > 0) return 'kept';
    return (await this.owns(ownerId, id)) ? 'taken' : 'missing';
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

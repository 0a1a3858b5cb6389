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
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".transcripts`;
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

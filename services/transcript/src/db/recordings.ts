import { isUuid, type DatabaseHandle } from '@chronicler/kit';
import { randomBytes } from 'node:crypto';

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

/** The bot sessions with kept tracks and the link-signing key (migrations 0014, 0016, 0017). */
export class RecordingStore {
  private readonly transcripts: string;
  private readonly tracks: string;
  private readonly posts: string;
  private readonly sessions: string;
  private readonly keyTable: string;
  private key: Promise<Buffer> | null = null;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.transcripts = `"${schema}".transcripts`;
    this.tracks = `"${schema}".audio_tracks`;
    this.posts = `"${schema}".recap_posts`;
    this.sessions = `"${schema}".live_sessions`;
    this.keyTable = `"${schema}".recording_link_key`;
  }

  /** The signing key: made by the first replica to ask, then the same for all. */
  signingKey(): Promise<Buffer> {
    this.key ??= (async () => {
      await this.db.query(`insert into ${this.keyTable} (secret) values ($1) on conflict (id) do nothing`, [
        randomBytes(32).toString('base64url'),
      ]);
      const [r] = await this.db.query<{ secret: string }>(`select secret from ${this.keyTable} where id = 1`);
      return Buffer.from(r!.secret, 'base64url');
    })().catch((err: unknown) => {
      this.key = null;
      throw err;
    });
    return this.key;
  }

  /** A server's ended bot sessions that kept tracks, newest first: one owner's, or anyone's (ownerId null). */
  async ofGuild(
    guildId: string,
    ownerId: string | null,
    opts: { q?: string; id?: string; limit: number },
  ): Promise<{ transcript_id: string; name: string; started_at: string }[]> {
    if ((opts.id !== undefined && !isUuid(opts.id)) || (ownerId !== null && !isUuid(ownerId))) return [];
    const rows = await this.db.query<{ id: string; name: string; started_at: unknown }>(
      `select t.id, t.name, coalesce(s.started_at, t.created_at) as started_at
         from ${this.posts} p join ${this.transcripts} t on t.id = p.transcript_id and t.owner_id = p.owner_id
         left join ${this.sessions} s on s.transcript_id = t.id
        where p.guild_id = $1 and ($2::uuid is null or p.owner_id = $2) and t.status <> 'active'
          and exists (select 1 from ${this.tracks} a where a.transcript_id = t.id)
          and ($3::text is null or t.name ilike '%' || $3 || '%')
          and ($4::uuid is null or t.id = $4)
        order by started_at desc limit $5`,
      [
        guildId,
        ownerId,
        opts.q ? opts.q.replace(/[\\%_]/g, (c) => `\\${c}`) : null,
        opts.id ?? null,
        opts.limit,
      ],
    );
    return rows.map((r) => ({
      transcript_id: String(r.id),
      name: String(r.name),
      started_at: iso(r.started_at),
    }));
  }

  /** A session's name and kept tracks by speaker (null when the session is gone). */
  async tracksOf(id: string): Promise<{
    name: string;
    tracks: { speaker: string; blob: string; size: number; format: string }[];
  } | null> {
    if (!isUuid(id)) return null;
    const [t] = await this.db.query<{ name: string }>(`select name from ${this.transcripts} where id = $1`, [
      id,
    ]);
    if (!t) return null;
    const rows = await this.db.query<{
      speaker: string;
      blob: string;
      size: string | number;
      format: string;
    }>(`select speaker, blob, size, format from ${this.tracks} where transcript_id = $1 order by speaker`, [
      id,
    ]);
    return {
      name: String(t.name),
      tracks: rows.map((r) => ({ speaker: r.speaker, blob: r.blob, size: Number(r.size), format: r.format })),
    };
  }
}

import type { Recap } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle } from '@chronicler/kit';

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

/** Where each bot-recorded session's recap goes in Discord, and whether it went (migration 0016_recap_posts). */
export class RecapStore {
  private readonly posts: string;
  private readonly transcripts: string;
  private readonly sessions: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.posts = `"${schema}".recap_posts`;
    this.transcripts = `"${schema}".transcripts`;
    this.sessions = `"${schema}".live_sessions`;
  }

  private get select(): string {
    return `select t.id, t.name, t.summary, p.guild_id, p.channel_id, coalesce(s.started_at, t.created_at) as started_at
              from ${this.posts} p join ${this.transcripts} t on t.id = p.transcript_id and t.owner_id = p.owner_id
              left join ${this.sessions} s on s.transcript_id = t.id`;
  }

  async setTarget(ownerId: string, id: string, guildId: string, channelId: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    await this.db.query(
      `insert into ${this.posts} (transcript_id, owner_id, guild_id, channel_id) values ($1, $2, $3, $4)
       on conflict (transcript_id) do update set guild_id = excluded.guild_id, channel_id = excluded.channel_id
        where ${this.posts}.owner_id = excluded.owner_id`,
      [id, ownerId, guildId, channelId],
    );
    return true;
  }

  /** Marks the session's recap posted, once: the recap for the caller that did, else null. */
  async claim(id: string): Promise<Recap | null> {
    if (!isUuid(id)) return null;
    const rows = await this.db.query<{ transcript_id: string }>(
      `update ${this.posts} p set posted_at = now()
         from ${this.transcripts} t
        where p.transcript_id = $1 and p.posted_at is null and t.id = p.transcript_id
          and t.status = 'ended' and t.summary <> ''
       returning p.transcript_id`,
      [id],
    );
    if (rows.length === 0) return null;
    const [r] = await this.db.query<Record<string, unknown>>(`${this.select} where p.transcript_id = $1`, [
      id,
    ]);
    return r ? toRecap(r) : null;
  }

  async release(id: string): Promise<void> {
    if (!isUuid(id)) return;
    await this.db.query(`update ${this.posts} set posted_at = null where transcript_id = $1`, [id]);
  }

  /** The owner's bot sessions of a server, newest first, by name or id. */
  async ofGuild(
    ownerId: string,
    guildId: string,
    opts: { q?: string; id?: string; limit: number },
  ): Promise<Recap[]> {
    if (opts.id !== undefined && !isUuid(opts.id)) return [];
    const rows = await this.db.query<Record<string, unknown>>(
      `${this.select}
        where p.owner_id = $1 and p.guild_id = $2 and t.status <> 'active'
          and ($3::text is null or t.name ilike '%' || $3 || '%')
          and ($4::uuid is null or t.id = $4)
        order by started_at desc limit $5`,
      [
        ownerId,
        guildId,
        opts.q ? opts.q.replace(/[\\%_]/g, (c) => `\\${c}`) : null,
        opts.id ?? null,
        opts.limit,
      ],
    );
    return rows.map(toRecap);
  }
}

function toRecap(r: Record<string, unknown>): Recap {
  return {
    transcript_id: String(r.id),
    name: String(r.name),
    summary: String(r.summary ?? ''),
    guild_id: String(r.guild_id),
    channel_id: String(r.channel_id),
    started_at: iso(r.started_at),
  };
}

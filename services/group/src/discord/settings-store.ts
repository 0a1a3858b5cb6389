import type { AutoRecordRule, ConsentMode, MemberConsent, ServerSettings } from '@chronicler/contracts';
import type { DatabaseHandle } from '@chronicler/kit';

/** The settings of a server nobody has saved any for. */
const defaultServerSettings = (guildId: string): ServerSettings => ({
  guild_id: guildId,
  default_group_id: null,
  consent_mode: 'announce',
  announcement_channel_id: null,
  starter_roles: [],
  language: null,
  auto_record: [],
  updated_at: null,
});

/** The queries of the tables discord_server_settings and discord_member_consent. */
export class ServerSettingsStore {
  private readonly settings: string;
  private readonly consent: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.settings = `"${schema}".discord_server_settings`;
    this.consent = `"${schema}".discord_member_consent`;
  }

  async get(guildId: string): Promise<ServerSettings> {
    const [r] = await this.db.query<Record<string, unknown>>(
      `select * from ${this.settings} where guild_id = $1`,
      [guildId],
    );
    if (!r) return defaultServerSettings(guildId);
    const rules = typeof r.auto_record === 'string' ? JSON.parse(r.auto_record) : r.auto_record;
    return {
      guild_id: guildId,
      default_group_id: r.default_group_id ? String(r.default_group_id) : null,
      consent_mode: String(r.consent_mode) as ConsentMode,
      announcement_channel_id: r.announcement_channel_id ? String(r.announcement_channel_id) : null,
      starter_roles: Array.isArray(r.starter_roles) ? r.starter_roles.map(String) : [],
      language: r.language ? String(r.language) : null,
      auto_record: (rules ?? []) as AutoRecordRule[],
      updated_at: new Date(String(r.updated_at)).toISOString(),
    };
  }

  async put(s: ServerSettings): Promise<void> {
    await this.db.query(
      `insert into ${this.settings}
         (guild_id, default_group_id, consent_mode, announcement_channel_id, starter_roles, language, auto_record, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, now())
       on conflict (guild_id) do update set
         default_group_id = excluded.default_group_id, consent_mode = excluded.consent_mode,
         announcement_channel_id = excluded.announcement_channel_id,
         starter_roles = excluded.starter_roles, language = excluded.language,
         auto_record = excluded.auto_record, updated_at = now()`,
      [
        s.guild_id,
        s.default_group_id,
        s.consent_mode,
        s.announcement_channel_id,
        s.starter_roles,
        s.language,
        JSON.stringify(s.auto_record),
      ],
    );
  }

  async consents(guildId: string): Promise<{ in: string[]; out: string[] }> {
    const rows = await this.db.query<{ user_id: string; choice: MemberConsent }>(
      `select user_id, choice from ${this.consent} where guild_id = $1 order by user_id`,
      [guildId],
    );
    return {
      in: rows.filter((r) => r.choice === 'in').map((r) => r.user_id),
      out: rows.filter((r) => r.choice === 'out').map((r) => r.user_id),
    };
  }

  async setConsent(guildId: string, userId: string, choice: MemberConsent): Promise<void> {
    await this.db.query(
      `insert into ${this.consent} (guild_id, user_id, choice) values ($1, $2, $3)
       on conflict (guild_id, user_id) do update set choice = excluded.choice, updated_at = now()`,
      [guildId, userId, choice],
    );
  }
}

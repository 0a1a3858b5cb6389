/**
 * A Discord server's settings for the voice bot (kept by the group service, cached by the bot),
 * the members' lasting recording choices, and the servers a signed-in user manages (kept by the
 * auth service from Discord's `GET /users/@me/guilds` at sign-in).
 */
import { Type, type Static } from '@sinclair/typebox';
import { busEvent } from './events.ts';
import { OkSchema } from './owner-scoped.ts';
import { rpc } from './rpc.ts';

const Snowflake = Type.String({ pattern: '^[0-9]{1,25}$', description: 'A Discord id' });
const Clock = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, 24-hour' });

/** `announce`: everyone is recorded unless they opt out; `opt_in`: only who pressed Record me. */
const CONSENT_MODES = ['announce', 'opt_in'] as const;
export type ConsentMode = (typeof CONSENT_MODES)[number];

/** The most auto-record rules and starter roles one server keeps. */
const AUTO_RECORD_RULES_MAX = 5;
const STARTER_ROLES_MAX = 25;

/**
 * Record when at least `min_members` people (bots not counted) are in `channel_id`, optionally
 * only between `from` and `to` (in `timezone`, an IANA name; UTC by default), into `group_id`,
 * owned by `owner_discord_id`'s Chronicler account (null: the server owner's). Stops once the
 * channel has had nobody in it for `empty_minutes`.
 */
const AutoRecordRuleSchema = Type.Object({
  channel_id: Snowflake,
  min_members: Type.Integer({ minimum: 1, maximum: 99 }),
  group_id: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
  owner_discord_id: Type.Union([Snowflake, Type.Null()]),
  from: Type.Union([Clock, Type.Null()]),
  to: Type.Union([Clock, Type.Null()]),
  timezone: Type.String({ minLength: 1, maxLength: 64 }),
  empty_minutes: Type.Number({ minimum: 0.05, maximum: 60 }),
});
export type AutoRecordRule = Static<typeof AutoRecordRuleSchema>;

/** The settings fields a change may carry (each optional: what is absent stays). */
export const ServerSettingsChangeSchema = Type.Object(
  {
    default_group_id: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    consent_mode: Type.Optional(Type.Union(CONSENT_MODES.map((m) => Type.Literal(m)))),
    announcement_channel_id: Type.Optional(Type.Union([Snowflake, Type.Null()])),
    starter_roles: Type.Optional(Type.Array(Snowflake, { maxItems: STARTER_ROLES_MAX })),
    language: Type.Optional(
      Type.Union([Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$', maxLength: 20 }), Type.Null()]),
    ),
    auto_record: Type.Optional(Type.Array(AutoRecordRuleSchema, { maxItems: AUTO_RECORD_RULES_MAX })),
  },
  { additionalProperties: false },
);
export type ServerSettingsChange = Static<typeof ServerSettingsChangeSchema>;

export const ServerSettingsSchema = Type.Object({
  guild_id: Snowflake,
  default_group_id: Type.Union([Type.String(), Type.Null()]),
  consent_mode: Type.Union(CONSENT_MODES.map((m) => Type.Literal(m))),
  announcement_channel_id: Type.Union([Type.String(), Type.Null()]),
  starter_roles: Type.Array(Type.String()),
  language: Type.Union([Type.String(), Type.Null()]),
  auto_record: Type.Array(AutoRecordRuleSchema),
  updated_at: Type.Union([Type.String(), Type.Null()]),
});
export type ServerSettings = Static<typeof ServerSettingsSchema>;

/** svc.group.server-settings: a server's settings (the defaults until someone saves some). */
export const getServerSettingsRpc = rpc(
  'group',
  'server-settings',
  Type.Object({ guild_id: Snowflake }),
  ServerSettingsSchema,
);

/**
 * svc.group.put-server-settings: applies a change. `editor_id` is the Chronicler account making
 * it: a default or auto-record group must be one of theirs (null: only settings without a group).
 */
export const putServerSettingsRpc = rpc(
  'group',
  'put-server-settings',
  Type.Object({
    guild_id: Snowflake,
    editor_id: Type.Union([Type.String(), Type.Null()]),
    change: ServerSettingsChangeSchema,
  }),
  ServerSettingsSchema,
);

/** A server's settings changed: the voice bot drops its cached copy (not durable: a cache hint). */
export const serverSettingsChangedEvent = busEvent(
  'discord',
  'settings-changed',
  Type.Object({ guild_id: Type.String() }),
);

/** A member's lasting choice in a server: `in` (Record me, /onrecord), `out` (/offrecord). */
const MemberConsentSchema = Type.Union([Type.Literal('in'), Type.Literal('out')]);
export type MemberConsent = Static<typeof MemberConsentSchema>;

/** svc.group.member-consents: every member's stored choice in a server. */
export const memberConsentsRpc = rpc(
  'group',
  'member-consents',
  Type.Object({ guild_id: Snowflake }),
  Type.Object({ in: Type.Array(Type.String()), out: Type.Array(Type.String()) }),
);

/** svc.group.set-member-consent: stores one member's choice. */
export const setMemberConsentRpc = rpc(
  'group',
  'set-member-consent',
  Type.Object({ guild_id: Snowflake, user_id: Snowflake, choice: MemberConsentSchema }),
  OkSchema,
);

/** A server the user can manage (owner, Administrator or Manage Server) as Discord said at sign-in. */
export const ManagedGuildSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  icon: Type.Union([Type.String(), Type.Null()]),
});
export type ManagedGuild = Static<typeof ManagedGuildSchema>;

/** svc.auth.managed-guilds: the servers the user manages (from their last Discord sign-in). */
export const managedGuildsRpc = rpc(
  'auth',
  'managed-guilds',
  Type.Object({ user_id: Type.String({ minLength: 1 }) }),
  Type.Object({ items: Type.Array(ManagedGuildSchema) }),
);

/**
 * A server's channels and roles as the voice bot last saw them, so that the settings page
 * offers them by name (ids typed by hand otherwise). `updated_at` null: no bot has described
 * the server (it is not in it, or has not started since it joined).
 */
export const GuildDirectorySchema = Type.Object({
  channels: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      /** `text`: where messages go (announcements); `voice`: where people talk (auto-record). */
      kind: Type.Union([Type.Literal('text'), Type.Literal('voice')]),
    }),
  ),
  roles: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
  updated_at: Type.Union([Type.String(), Type.Null()]),
});
export type GuildDirectory = Static<typeof GuildDirectorySchema>;

/**
 * Where the voice bot keeps a server's directory in the shared cache (Redis in the cluster):
 * written by the replica holding the server's shard when it comes up and on every change to
 * the server's channels and roles, read by the gateway.
 */
export const guildDirectoryKey = (guildId: string): string => `discord:directory:${guildId}`;

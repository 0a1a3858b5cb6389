-- A Discord server's settings for the voice bot (see contracts discord-servers.ts): one row per
-- server once someone saves them; a server without a row has the defaults. The group service
-- checks the values (a default or auto-record group belongs to whoever sets it).
create table discord_server_settings (
  guild_id text primary key,
  default_group_id uuid references groups (id) on delete set null,
  consent_mode text not null default 'announce' check (consent_mode in ('announce', 'opt_in')),
  announcement_channel_id text,
  starter_roles text[] not null default '{}',
  language text,
  auto_record jsonb not null default '[]',
  updated_at timestamptz not null default now()
);

-- What each member chose in a server, kept across recordings and restarts: 'in' (Record me,
-- /onrecord) or 'out' (/offrecord).
create table discord_member_consent (
  guild_id text not null,
  user_id text not null,
  choice text not null check (choice in ('in', 'out')),
  updated_at timestamptz not null default now(),
  primary key (guild_id, user_id)
);

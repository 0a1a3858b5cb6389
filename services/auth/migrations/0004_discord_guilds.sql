-- The Discord servers a user belongs to, with their permissions there, as Discord answered
-- GET /users/@me/guilds (scope `guilds`) at their last Discord sign-in. The server-settings
-- pages show and open only the ones the user manages (owner, Administrator or Manage Server).
create table discord_guilds (
  user_id uuid not null references users (id) on delete cascade,
  guild_id text not null,
  name text not null,
  icon text,
  owner boolean not null default false,
  -- Discord's permission bit set, as the decimal string it sends.
  permissions text not null,
  primary key (user_id, guild_id)
);

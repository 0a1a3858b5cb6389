-- Users, server-side sessions (so a short-lived token can be revoked and renewed), the
-- single-use OAuth state + PKCE verifiers, and settings (the embedded mode's JWT secret).
create table users (
  id uuid primary key default gen_random_uuid(),
  discord_id text unique,
  google_sub text unique,
  -- Local accounts are matched case-insensitively, so the name is stored lowercased here
  -- and as typed in username.
  local_name text unique,
  username text not null,
  avatar text,
  email text,
  is_admin boolean not null default false,
  created_at timestamptz not null default now(),
  last_login_at timestamptz not null default now()
);

create table sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users (id) on delete cascade,
  provider text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  revoked_at timestamptz
);
create index sessions_user_id_idx on sessions (user_id);
create index sessions_expires_at_idx on sessions (expires_at);

create table oauth_states (
  state text primary key,
  code_verifier text not null,
  provider text not null,
  redirect_uri text not null,
  created_at timestamptz not null default now()
);
create index oauth_states_created_at_idx on oauth_states (created_at);

create table settings (
  key text primary key,
  value text not null,
  created_at timestamptz not null default now()
);

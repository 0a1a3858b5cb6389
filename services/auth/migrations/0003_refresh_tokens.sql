-- Refresh credentials, distinct from the access tokens: only their SHA-256 is kept. Each is
-- used once (used_at); the row stays while its session does, so a second use of an old one
-- is recognised as a copy and revokes the session.
create table refresh_tokens (
  token_hash text primary key,
  session_id uuid not null references sessions (id) on delete cascade,
  created_at timestamptz not null default now(),
  used_at timestamptz
);
create index refresh_tokens_session_id_idx on refresh_tokens (session_id);

-- One-time WebSocket tickets (a browser socket cannot send a header, and a token must not
-- travel in a URL): the SHA-256 of each, taken out by its first use, good for a minute.
create table socket_tickets (
  ticket_hash text primary key,
  session_id uuid not null references sessions (id) on delete cascade,
  created_at timestamptz not null default now()
);

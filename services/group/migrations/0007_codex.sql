-- The campaign codex: its people, places, items, factions and threads (codex_entries), where
-- each session names them (codex_mentions: a spread of at most 12 moments per entry and session;
-- codex_entry_sessions: the whole count per session), and which version of each session's text
-- it was read at (codex_sources: a version read again changes nothing). An entry the game master
-- changed keeps what they set (gm_* flags) through every later reading; a merged entry stays as
-- a tombstone (merged_into) so that its name, found again, lands on the entry it became. Rows go
-- with their group.
create table codex_entries (
  id uuid primary key default gen_random_uuid(),
  group_id uuid not null references groups (id) on delete cascade,
  kind text not null check (kind in ('person', 'place', 'item', 'faction', 'thread')),
  name text not null check (char_length(name) between 1 and 80),
  aliases text[] not null default '{}',
  description text not null default '' check (char_length(description) <= 2000),
  visibility text not null default 'players' check (visibility in ('gm', 'players')),
  hidden boolean not null default false,
  gm_name boolean not null default false,
  gm_kind boolean not null default false,
  gm_description boolean not null default false,
  gm_aliases boolean not null default false,
  gm_visibility boolean not null default false,
  merged_into uuid references codex_entries (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index codex_entries_group on codex_entries (group_id, kind);

create table codex_entry_sessions (
  entry_id uuid not null references codex_entries (id) on delete cascade,
  transcript_id uuid not null,
  mentions integer not null check (mentions >= 0),
  primary key (entry_id, transcript_id)
);

create table codex_mentions (
  entry_id uuid not null references codex_entries (id) on delete cascade,
  transcript_id uuid not null,
  line integer not null check (line >= 0),
  seconds integer check (seconds >= 0),
  primary key (entry_id, transcript_id, line)
);

create table codex_sources (
  group_id uuid not null references groups (id) on delete cascade,
  transcript_id uuid not null,
  version text not null,
  session_name text not null,
  session_timestamp timestamptz not null,
  read_at timestamptz not null default now(),
  primary key (group_id, transcript_id)
);

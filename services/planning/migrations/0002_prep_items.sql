-- Prep that ticks itself off (#49): the items a game master prepares for a group's next
-- session, and where each came up in a live session.
create table prep_items (
  id uuid primary key default gen_random_uuid(),
  -- The order written: the checklist reads top-down as it was prepared.
  seq bigserial not null,
  owner_id uuid not null,
  group_id uuid not null,
  text text not null,
  done boolean not null default false,
  ticked_by text check (ticked_by in ('transcript', 'user')),
  -- The moment it came up: {transcript_id, seconds, timestamp, speaker, quote}.
  moment jsonb,
  -- The session whose plan closed with it; null while in the next session's plan.
  closed_in uuid,
  -- The sessions it was planned for without coming up, oldest first.
  carried_from uuid[] not null default '{}',
  created_at timestamptz not null default now()
);

create index prep_items_owner_group on prep_items (owner_id, group_id, seq);

-- The live sessions of a group, learned from their start on LIVE: a final names only its
-- transcript. `recent` holds the session's last final line, matched together with the next.
create table prep_sessions (
  transcript_id uuid primary key,
  owner_id uuid not null,
  group_id uuid not null,
  started_at timestamptz not null,
  recent text not null default '',
  -- The campaign's names (codex entries and aliases, vocabulary) when the session started:
  -- an item naming one needs it said.
  names text[] not null default '{}'
);

-- Sessions (transcripts). The content lives in the same row: PostgreSQL stores large text
-- out of line (TOAST), so list queries that do not select it never read it. The preview
-- is kept beside it for the same reason.
create table transcripts (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null,
  group_id uuid,
  name text not null default 'Live Transcription',
  session_timestamp timestamptz not null default now(),
  created_at timestamptz not null default now(),
  last_activity timestamptz not null default now(),
  status text not null default 'ended' check (status in ('active', 'ended')),
  summary text not null default '',
  llm_summary text not null default '',
  content text not null default '',
  preview text not null default '',
  source text not null default 'manual' check (source in ('live', 'manual', 'audio')),
  audio_seconds double precision not null default 0
);

create index transcripts_owner_timestamp on transcripts (owner_id, session_timestamp desc);
create index transcripts_owner_group on transcripts (owner_id, group_id) where group_id is not null;

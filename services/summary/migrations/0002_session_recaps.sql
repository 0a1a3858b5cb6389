-- The last recap made of each session, with the version of what it was made from (the engine's
-- model, the session's name and content, the group's who-is-who map): a Generate of content the
-- recap already covers, or the automatic summary and a Generate of the same new session, call
-- the model once between them.
create table session_recaps (
  transcript_id uuid primary key,
  owner_id uuid not null,
  version text not null,
  summary text not null,
  created_at timestamptz not null default now()
);

-- Groups (campaigns). Membership is the session's group_id, owned by the transcript
-- service; this service asks it for the session ids of each group.
create table groups (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null,
  name text not null,
  summary text not null default '',
  llm_summary text not null default '',
  summary_generated_at timestamptz,
  created_at timestamptz not null default now()
);

create index groups_owner on groups (owner_id, created_at);

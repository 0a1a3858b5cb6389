-- The planning chat of each (user, group): user messages and the AI's replies. Group ids
-- belong to the group service; the rows go when it announces a group's deletion.
create table messages (
  id uuid primary key default gen_random_uuid(),
  -- Insertion order: a user message and its reply may share a timestamp.
  seq bigserial not null,
  owner_id uuid not null,
  group_id uuid not null,
  role text not null check (role in ('user', 'assistant')),
  content text not null,
  created_at timestamptz not null
);

create index messages_owner_group on messages (owner_id, group_id, seq);

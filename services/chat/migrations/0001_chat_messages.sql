-- The conversation each user has about each of their transcripts (02 §2 Chat panel).
-- The transcript belongs to the transcript service: its ownership is checked there on every
-- request, so no foreign key crosses the two schemas.
create table chat_messages (
  id bigint generated always as identity primary key,
  owner_id uuid not null,
  transcript_id uuid not null,
  role text not null check (role in ('user', 'assistant', 'system')),
  content text not null,
  created_at timestamptz not null default now()
);

create index chat_messages_conversation on chat_messages (owner_id, transcript_id, id);

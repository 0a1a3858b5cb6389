-- Session notes: one per session, stored exactly as written; gone with the session.
create table notes (
  transcript_id uuid primary key references transcripts (id) on delete cascade,
  content text not null default '',
  updated_at timestamptz not null default now()
);

-- Live sessions recorded by the voice bot (or replayed). A final utterance becomes one row of
-- transcript_lines exactly once (unique per transcript and utterance id) and gets the next
-- per-transcript sequence number: the cursor a viewer replays from after a reconnect. The
-- transcript's content is built from the lines when the session ends; while it runs, readers
-- assemble it from the lines, so a four-hour session never rewrites a growing text per line.
create table live_sessions (
  transcript_id uuid primary key references transcripts (id) on delete cascade,
  owner_id uuid not null,
  origin text not null check (origin in ('discord', 'replay')),
  provider text not null default '',
  guild_id text not null default '',
  channel_id text not null default '',
  started_at timestamptz not null,
  ended_at timestamptz,
  -- The newest seq given out: lines 1..final_count exist.
  final_count integer not null default 0,
  interim_count integer not null default 0,
  error text not null default ''
);

create index live_sessions_open on live_sessions (owner_id) where ended_at is null;

create table transcript_lines (
  transcript_id uuid not null references transcripts (id) on delete cascade,
  seq integer not null,
  utterance_id text not null,
  speaker_tag jsonb not null,
  speaker_name text,
  speaker_user_id text,
  text text not null,
  start_seconds double precision not null,
  end_seconds double precision not null,
  stored_at timestamptz not null default now(),
  primary key (transcript_id, seq),
  unique (transcript_id, utterance_id)
);

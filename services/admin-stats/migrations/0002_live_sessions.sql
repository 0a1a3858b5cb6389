-- Live sessions as the admin dashboard sees them: a row per transcript id, made by whichever
-- of its events comes first (the start on LIVE, the pipeline's end on LIVE, the transcript
-- service's close on LIVE_OUT), so an end delivered before its start still ends the session.
-- A session is active while it has a start and no end. Ids are kept as text, as in the ledger.
create table live_sessions (
  transcript_id text primary key,
  owner_id text not null default '',
  started_at timestamptz,
  ended_at timestamptz
);

create index live_sessions_active on live_sessions (started_at) where ended_at is null;

-- Where the voice bot posts each session's recap back to Discord (the server's announcement
-- channel, recorded when the recording starts) and whether it has been posted: the claim that
-- makes the automatic post happen once across bot replicas and restarts (issue 35). Kept
-- when the recording starts, possibly before the live start has created the transcript: no
-- foreign key; every read joins the transcript, and a session's row goes with it (trigger).
create table recap_posts (
  transcript_id uuid primary key,
  owner_id uuid not null,
  guild_id text not null,
  channel_id text not null,
  posted_at timestamptz
);

create function recap_posts_session_deleted() returns trigger
language plpgsql set search_path from current as $$
begin
  delete from recap_posts where transcript_id = old.id;
  return null;
end
$$;
create trigger transcripts_recap_posts after delete on transcripts
  for each row execute function recap_posts_session_deleted();

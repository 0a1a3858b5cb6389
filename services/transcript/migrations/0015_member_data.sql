-- A recorded member's own data (issue 35): whose voice a speaker's track is, so that they can
-- have it deleted, and the members who had their part of a session removed (a track the bot
-- hands over after the removal is deleted instead of kept).
alter table audio_tracks add column user_id text;
create index audio_tracks_user on audio_tracks (user_id) where user_id is not null;
create index transcript_lines_speaker_user on transcript_lines (speaker_user_id)
  where speaker_user_id is not null;

create table member_removals (
  transcript_id uuid not null references transcripts (id) on delete cascade,
  user_id text not null,
  removed_at timestamptz not null default now(),
  primary key (transcript_id, user_id)
);

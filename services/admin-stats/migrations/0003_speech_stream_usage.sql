-- What streaming speech providers bill: one row per provider stream of one speaker in a live
-- session, the seconds it was open (five speakers for three hours are fifteen stream-hours,
-- where transcription_usage counts the session's three). Keyed by the record id the voice bot
-- publishes (`stream:<transcript>:<speaker>:<index>`), so a redelivery counts once.
create table speech_stream_usage (
  record_id text primary key,
  owner_id text not null,
  transcript_id text not null default '',
  speaker_key text not null default '',
  provider text not null default '',
  seconds double precision not null check (seconds >= 0),
  recorded_at timestamptz not null
);

create index speech_stream_usage_time on speech_stream_usage (recorded_at);

-- Recordings kept after transcription, for playing a session from a line: the object's name
-- in the SESSION_AUDIO_BUCKET blob bucket (JetStream object store in the cluster), its size
-- and format, and when it was kept (retention counts from then). '' when nothing is kept.
alter table transcripts
  add column kept_audio_blob text not null default '',
  add column kept_audio_size bigint not null default 0,
  add column kept_audio_format text not null default '',
  add column kept_audio_at timestamptz;

create index transcripts_kept_audio on transcripts (kept_audio_at) where kept_audio_blob <> '';

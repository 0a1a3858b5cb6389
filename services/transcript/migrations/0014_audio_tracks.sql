-- Per-speaker recordings the voice bot kept with its sessions (Ogg/Opus as recorded, time 0 =
-- the session's start): one row per session and speaker label, the object's name in the
-- SESSION_AUDIO_BUCKET blob bucket, its size and format, and when it was kept (retention
-- counts from then). Rows go with their session; the blobs are deleted by the service first.
create table audio_tracks (
  transcript_id uuid not null references transcripts (id) on delete cascade,
  owner_id uuid not null,
  speaker text not null,
  blob text not null,
  size bigint not null,
  format text not null,
  kept_at timestamptz not null default now(),
  primary key (transcript_id, speaker)
);

create index audio_tracks_owner on audio_tracks (owner_id);
create index audio_tracks_kept_at on audio_tracks (kept_at);

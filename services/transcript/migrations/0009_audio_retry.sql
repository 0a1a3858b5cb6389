-- The uploaded recording of an audio session, named so that a failed transcription can be
-- tried again without uploading it again. Cleared once it is transcribed; the recording
-- itself is deleted then, with the session, or when the upload bucket's retention ends.
alter table transcripts
  add column audio_blob text not null default '',
  add column audio_size bigint not null default 0,
  add column audio_format text not null default '';

-- The provider's own job for an uploaded recording (AssemblyAI's transcript id), so a worker
-- that restarts mid-job polls that job instead of uploading the recording again; and which
-- provider did the work.
alter table transcripts
  add column transcription_job_id text not null default '',
  add column transcription_provider text not null default '';

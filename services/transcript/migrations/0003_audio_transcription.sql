-- Sessions made from an uploaded recording are transcribed in the background: where that
-- stands, and why it failed when it did. Live and manual sessions have nothing to transcribe.
alter table transcripts
  add column transcription_status text not null default 'none'
    check (transcription_status in ('none', 'queued', 'processing', 'completed', 'failed')),
  add column transcription_error text not null default '';

-- Where a session's AI summary stands, so session cards can say 'Generating summary...' or
-- 'Error generating summary'. Sessions that already have a summary count as done.
alter table transcripts
  add column summary_status text not null default 'none'
    check (summary_status in ('none', 'generating', 'done', 'failed'));
update transcripts set summary_status = 'done' where summary <> '';

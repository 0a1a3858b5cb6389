-- A line fixed by hand (PATCH /transcripts/{id}/lines/{n}): the line as it was before the
-- first edit, so the viewer can show it as edited and put it back. `line_no` is the line's
-- place among the transcript's non-blank lines (1-based); edits never add or drop a line, so
-- it stays put. For a live session the stored line row is changed too (a later rebuild of the
-- content from the rows keeps the edit); its original text and speaker name are kept here.
create table line_edits (
  transcript_id uuid not null references transcripts (id) on delete cascade,
  line_no integer not null check (line_no > 0),
  original_line text not null,
  original_text text,
  original_speaker_name text,
  edited_at timestamptz not null default now(),
  primary key (transcript_id, line_no)
);

-- Display names for a session's speaker labels ('Speaker 2', a Discord nickname). The stored
-- lines keep their label; readers show the name.
create table speaker_names (
  transcript_id uuid not null references transcripts (id) on delete cascade,
  label text not null,
  name text not null,
  character text not null default '',
  primary key (transcript_id, label)
);

-- A summary made before a line edit or a rename no longer matches the transcript.
alter table transcripts add column summary_outdated boolean not null default false;

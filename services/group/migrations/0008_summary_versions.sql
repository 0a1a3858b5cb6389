-- Nothing written is lost: every campaign summary that is replaced (by a hand edit, by a
-- generation, automatic or asked for, or by restoring an older one) is kept here first, in the
-- same transaction as the change, so the owner can read it and restore it.
-- `summary_source` says who wrote the text a group shows now: 'hand' (the owner, also an edit of
-- a generated text) or 'generated' (the AI, unchanged since).
alter table groups add column summary_source text not null default 'hand'
  check (summary_source in ('hand', 'generated'));

-- Texts stored before this migration: generated when they still read as the model's text.
update groups set summary_source = 'generated'
 where summary_generated_at is not null and summary = left(btrim(llm_summary), 10000);

create table summary_versions (
  id uuid primary key default gen_random_uuid(),
  group_id uuid not null references groups (id) on delete cascade,
  summary text not null,
  llm_summary text not null,
  source text not null check (source in ('hand', 'generated')),
  -- When the replaced text was generated (null for one never generated).
  generated_at timestamptz,
  replaced_at timestamptz not null default clock_timestamp(),
  replaced_by text not null check (replaced_by in ('edit', 'generation', 'restore'))
);

create index summary_versions_group on summary_versions (group_id, replaced_at desc, id);

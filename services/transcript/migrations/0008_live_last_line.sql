-- When the session's newest line was stored (its start, before the first line). The stall
-- rule (a waiting final may take a missing one's place only after STALL_SECONDS without a
-- stored line) reads it from the session row that append locks: a statement that waited for
-- that lock sees the row as the committing store left it, but its snapshot of
-- transcript_lines predates that store, so it could not see the line just stored there and
-- took a draining backlog for a stall.
alter table live_sessions add column last_line_at timestamptz not null default now();
update live_sessions s
   set last_line_at = coalesce(
         (select max(l.stored_at) from transcript_lines l where l.transcript_id = s.transcript_id),
         s.last_line_at);

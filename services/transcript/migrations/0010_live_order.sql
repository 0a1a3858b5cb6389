-- Finals are stored at their place in the session (the pipeline's final_index) the moment
-- they arrive, in any order: seq is that place. final_count is now the highest seq stored,
-- line_count how many rows the session has (lines and lost markers): fewer than final_count
-- means a gap, a final still on its way. A gap that stays open longer than a bound is closed
-- with a lost marker (lost = true, no text) at each missing seq, never by holding later lines.
-- An end that arrives while finals are missing is kept in pending_end and carried out when
-- the last one is stored or its gap is closed as lost.
alter table live_sessions add column line_count integer not null default 0;
alter table live_sessions add column pending_end jsonb;
update live_sessions set line_count = final_count;
alter table transcript_lines add column lost boolean not null default false;
create index live_sessions_gaps on live_sessions (last_line_at)
  where ended_at is null and (line_count < final_count or pending_end is not null);

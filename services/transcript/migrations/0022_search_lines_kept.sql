-- A session's line entries are rewritten only where they changed. Until now every change of
-- a session's content deleted all its line entries and indexed every line again. A live
-- session's lines are indexed as they are stored (search_live_line, 0013), yet its end, which
-- writes the content, threw those entries away and indexed its whole text again in the
-- transaction that closed it: to_tsvector and a GIN insert for every line (7.5 ms for 240
-- lines on PostgreSQL, `pnpm bench search-index`), at the same moment for every session that
-- ends then. An edit of one line of a 4-hour session re-indexed its 5,000 lines (139 ms).
--
-- Now an entry whose place, time and text are already right is left as it is (no tsvector is
-- made for it), a changed one is updated, a new one inserted, and those past the new last line
-- deleted: the same rows as before, whatever was there. A live session's end finds the entries
-- its lines made and rewrites none of them, unless the text says otherwise (a line lost before
-- them moves them up one place).
--
-- Compatible with the previous release: it calls neither function itself.

create or replace function search_put_lines(t uuid, content text) returns void
language sql set search_path from current as $$
  -- The text's entries, as 0013 makes them: ord, the line's index among non-blank lines; its
  -- time as seconds (not as words that every line would match); the rest as its body. Read
  -- without regexp_match, whose captures cost more than the rest of the function together
  -- (50 of 66 ms for 5,000 lines): one match tells a time, and its ']' where it ends. [0-9],
  -- not \d: the digits the viewer's parser takes, and never one that ::int refuses.
  with lines as (
    select (row_number() over (order by n) - 1)::int as ord, l,
           case when l ~ '^\[[0-9]{1,3}:[0-5][0-9]:[0-5][0-9]\]' then position(']' in l) end as close
      from (select btrim(raw, E' \t\r\f\v') as l, n
              from string_to_table(content, E'\n') with ordinality as s(raw, n)) x
     where l <> ''
  ), wanted as (
    select ord,
           split_part(substr(l, 2, close - 2), ':', 1)::int * 3600
             + split_part(substr(l, 2, close - 2), ':', 2)::int * 60
             + split_part(substr(l, 2, close - 2), ':', 3)::int as seconds,
           case when close is null then l else btrim(substr(l, close + 1)) end as body
      from lines
  ), gone as (
    delete from search_entries e
     where e.transcript_id = t and e.kind = 3 and e.ord >= (select count(*) from wanted)
  )
  -- Only what differs is written: an entry already right costs no tsvector.
  insert into search_entries as e (transcript_id, kind, ord, seconds, body)
  select t, 3, w.ord, w.seconds, w.body from wanted w
   where not exists (select 1 from search_entries k
                      where k.transcript_id = t and k.kind = 3 and k.ord = w.ord
                        and k.seconds is not distinct from w.seconds and k.body = w.body)
  on conflict (transcript_id, kind, ord) do update set seconds = excluded.seconds, body = excluded.body;
$$;

-- Search across sessions (GET /api/search): one row per searchable piece of a session (its
-- name, each summary, its notes, every non-blank line of its text) with its own tsvector, so
-- a hit names the line it came from and ts_headline reads one line, not 500,000 characters.
-- `ord` of a line is its index among the text's non-blank lines: the viewer's line number
-- (parseTranscriptLines skips blank lines the same way). The rows are kept by triggers on
-- the tables they copy, so every path that writes a session (create, edit, rename, summary,
-- notes, audio transcription, a live session's end) keeps them current without knowing of them.
create table search_entries (
  transcript_id uuid not null references transcripts (id) on delete cascade,
  -- 0 name, 1 summary, 2 notes, 3 line: also the weight (A to D) that ranks a name first.
  kind smallint not null check (kind between 0 and 3),
  ord integer not null,
  seconds integer,
  body text not null,
  tsv tsvector generated always as (
    setweight(to_tsvector('english'::regconfig, body),
              (case kind when 0 then 'A' when 1 then 'B' when 2 then 'C' else 'D' end)::"char")
  ) stored,
  primary key (transcript_id, kind, ord)
);
create index search_entries_tsv on search_entries using gin (tsv);

-- The entries of one part of a session, replaced whole. SET search_path FROM CURRENT: the
-- functions run with this service's schema whatever the caller's search_path is.
create function search_put(t uuid, k smallint, texts text[]) returns void
language sql set search_path from current as $$
  delete from search_entries where transcript_id = t and kind = k;
  insert into search_entries (transcript_id, kind, ord, body)
  select t, k, (o - 1)::int, x from unnest(texts) with ordinality as u(x, o) where btrim(x) <> '';
$$;

create function search_put_lines(t uuid, content text) returns void
language sql set search_path from current as $$
  delete from search_entries where transcript_id = t and kind = 3;
  insert into search_entries (transcript_id, kind, ord, seconds, body)
  select t, 3, (row_number() over (order by n) - 1)::int,
         (m[2]::int * 3600 + m[3]::int * 60 + m[4]::int),
         -- The time is kept as seconds, not as words ('00', '01') that every line would match.
         case when m is null then l else btrim(substr(l, length(m[1]) + 1)) end
    from (select btrim(raw, E' \t\r\f\v') as l, n
            from regexp_split_to_table(content, E'\n') with ordinality as s(raw, n)) lines
    left join lateral regexp_match(l, '^(\[(\d{1,3}):([0-5]\d):([0-5]\d)\])') as m on true
   where l <> '';
$$;

create function search_transcript_changed() returns trigger
language plpgsql set search_path from current as $$
begin
  if tg_op = 'INSERT' or new.name is distinct from old.name then
    perform search_put(new.id, 0::smallint, array[new.name]);
  end if;
  if tg_op = 'INSERT' or new.summary is distinct from old.summary
     or new.llm_summary is distinct from old.llm_summary then
    perform search_put(new.id, 1::smallint, array[new.summary, new.llm_summary]);
  end if;
  if tg_op = 'INSERT' or new.content is distinct from old.content then
    perform search_put_lines(new.id, new.content);
  end if;
  return null;
end
$$;

create trigger transcripts_search after insert or update of name, summary, llm_summary, content
  on transcripts for each row execute function search_transcript_changed();

create function search_notes_changed() returns trigger
language plpgsql set search_path from current as $$
begin
  if tg_op = 'DELETE' then
    perform search_put(old.transcript_id, 2::smallint, array[]::text[]);
    return null;
  end if;
  perform search_put(new.transcript_id, 2::smallint, array[new.content]);
  return null;
end
$$;

create trigger notes_search after insert or update of content or delete
  on notes for each row execute function search_notes_changed();

-- The sessions stored before this migration.
select search_put(id, 0::smallint, array[name]), search_put(id, 1::smallint, array[summary, llm_summary]),
       search_put_lines(id, content)
  from transcripts;
select search_put(transcript_id, 2::smallint, array[content]) from notes;

-- A live session's lines are searchable as they are stored, not only once it ends: each final
-- gets an entry at its place (seq - 1; its time links the hit). When the session ends its
-- content is written and the trigger above replaces these entries with the text's lines.
create function search_live_line() returns trigger
language plpgsql set search_path from current as $$
begin
  if new.lost or btrim(new.text) = ''
     or not exists (select 1 from transcripts where id = new.transcript_id and status = 'active') then
    return null;
  end if;
  insert into search_entries (transcript_id, kind, ord, seconds, body)
  values (new.transcript_id, 3, new.seq - 1, floor(new.start_seconds)::int,
          coalesce(nullif(btrim(new.speaker_name), ''), new.speaker_tag #>> '{}', '') || ': ' || new.text)
  on conflict (transcript_id, kind, ord) do update set seconds = excluded.seconds, body = excluded.body;
  return null;
end
$$;

create trigger transcript_lines_search after insert or update of text, lost on transcript_lines
  for each row execute function search_live_line();

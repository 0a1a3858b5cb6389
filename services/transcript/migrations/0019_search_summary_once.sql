-- A session's summary is found once, and its snippet reads as words. Until now both `summary`
-- (what the session shows) and `llm_summary` (what the model first wrote, the same text unless
-- the owner edited it) were entries, so a summary hit came back twice; and the entries held the
-- Markdown, so snippets showed `**Name**` and link targets (`…#t=01:20:42) -`). Now the one
-- summary the session shows is indexed, as plain text: comments (the offline marker), tags,
-- link targets, emphasis, code and heading, quote and list marks dropped.
create function search_plain(md text) returns text
language sql immutable as $$
  select regexp_replace(
           regexp_replace(
             regexp_replace(
               regexp_replace(
                 regexp_replace(md, '<!--.*?-->', ' ', 'g'),
                 '!?\[((?:[^][]|\[[^]]*\])*)\]\([^)]*\)', '\1', 'g'),
               '<[^>]+>', ' ', 'g'),
             '\*\*|__|~~|`|\*', '', 'g'),
           '^[ \t]{0,3}(#{1,6}[ \t]+|>[ \t]?|[-+][ \t]+|[0-9]+[.)][ \t]+)', '', 'gn');
$$;

create or replace function search_transcript_changed() returns trigger
language plpgsql set search_path from current as $$
begin
  if tg_op = 'INSERT' or new.name is distinct from old.name then
    perform search_put(new.id, 0::smallint, array[new.name]);
  end if;
  if tg_op = 'INSERT' or new.summary is distinct from old.summary
     or new.llm_summary is distinct from old.llm_summary then
    perform search_put(new.id, 1::smallint,
                       array[search_plain(coalesce(nullif(btrim(new.summary), ''), new.llm_summary))]);
  end if;
  if tg_op = 'INSERT' or new.content is distinct from old.content then
    perform search_put_lines(new.id, new.content);
  end if;
  return null;
end
$$;

-- The summaries stored before this migration.
select search_put(id, 1::smallint, array[search_plain(coalesce(nullif(btrim(summary), ''), llm_summary))])
  from transcripts;

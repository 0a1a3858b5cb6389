-- Campaign vocabulary: names the user wants the live transcription to get right (characters,
-- NPCs, places), in their order. The group service checks the limits (200 terms of 1-50
-- characters, no repeats ignoring case); the check here only keeps a bad write from a bug out.
alter table groups
  add column vocabulary text[] not null default '{}'
    check (cardinality(vocabulary) <= 200);

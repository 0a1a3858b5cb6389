-- Characters' stories and "previously on" texts as made, keyed by a digest of everything they
-- were made from (the model, the sessions' versions, the codex as its reader sees it, the
-- reader): a shared link opened again asks the model nothing. Old rows are dropped after 30 days.
create table story_cache (
  key text primary key,
  owner_id uuid not null,
  text text not null,
  created_at timestamptz not null default now()
);
create index story_cache_created on story_cache (created_at);

-- Read-only links that a session's or a campaign's owner gives to players (/shared/{token}).
-- Only a SHA-256 of the token is kept: a leaked table grants nothing. Revoking deletes the
-- row, so the link answers 404 at once; an expired link answers 404 too. A campaign's link
-- names the group (owned by the group service) by id: it goes when the group is deleted
-- (consumer of evt.group.deleted); a session's link goes with the session (trigger below).
create table shares (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null,
  kind text not null check (kind in ('transcript', 'group')),
  target_id uuid not null,
  token_hash bytea not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz
);

create index shares_owner_target on shares (owner_id, kind, target_id, created_at);

create function shares_transcript_deleted() returns trigger
language plpgsql set search_path from current as $$
begin
  delete from shares where kind = 'transcript' and target_id = old.id;
  return null;
end
$$;

create trigger transcripts_shares after delete on transcripts
  for each row execute function shares_transcript_deleted();

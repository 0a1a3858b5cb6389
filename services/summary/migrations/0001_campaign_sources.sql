-- What each generated campaign summary was made from: a digest of its sessions' ids and
-- summaries. A campaign needs a new summary when the digest of its sessions now differs.
create table campaign_sources (
  group_id uuid primary key,
  owner_id uuid not null,
  fingerprint text not null,
  generated_at timestamptz not null default now()
);

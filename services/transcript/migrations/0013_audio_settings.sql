-- Each owner's retention of kept recordings: days after they were kept, or null to keep them
-- until the session is deleted (the default, also when an owner has no row).
create table audio_settings (
  owner_id uuid primary key,
  retention_days integer check (retention_days is null or retention_days between 1 and 36500)
);

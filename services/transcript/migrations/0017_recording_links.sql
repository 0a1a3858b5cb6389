-- The key that signs /recording download links (HMAC-SHA256 over session, file and expiry):
-- made once by the first transcript service that needs it and read by every replica, so a
-- link signed by one is accepted by all; it never leaves the service.
create table recording_link_key (
  id smallint primary key default 1 check (id = 1),
  secret text not null
);

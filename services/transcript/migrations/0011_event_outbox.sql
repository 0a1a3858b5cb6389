-- Events written in the transaction of the change they announce (a transactional outbox):
-- the relay (kit EventOutbox) publishes them to JetStream after the commit and deletes them.
create table event_outbox (
  id bigserial primary key,
  subject text not null,
  payload jsonb not null,
  msg_id text not null,
  created_at timestamptz not null default now(),
  -- A relay's claim: another replica takes the row only once this has passed.
  claimed_until timestamptz
);

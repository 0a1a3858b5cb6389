-- The usage ledger. Producers publish usage records durably with their record id as the
-- message id; the id is also the primary key here, so a redelivered or re-published record
-- is counted once. Owner and transcript ids are kept as text: the ledger records what
-- producers send and must never refuse (and dead-letter) a record over an id's format.
create table transcription_usage (
  record_id text primary key,
  owner_id text not null,
  transcript_id text not null default '',
  source text not null check (source in ('audio', 'live')),
  provider text not null default '',
  seconds double precision not null check (seconds >= 0),
  recorded_at timestamptz not null
);

create index transcription_usage_owner_time on transcription_usage (owner_id, recorded_at);
create index transcription_usage_time on transcription_usage (recorded_at);

-- AI requests (chat, summaries, planning), one row per call to the model. /users/stats and
-- the admin dashboard count it already; the AI usage records that fill it come with the AI
-- features (keyed by record_id like the transcription ledger). The cost is estimated from
-- the prices configured when the request was made and kept as it was then.
create table ai_requests (
  record_id text primary key,
  user_id text not null,
  request_type text not null,
  model text not null,
  input_tokens integer not null default 0 check (input_tokens >= 0),
  output_tokens integer not null default 0 check (output_tokens >= 0),
  estimated_cost_usd numeric(12, 4) not null default 0,
  success boolean not null,
  processing_time_ms integer not null default 0 check (processing_time_ms >= 0),
  created_at timestamptz not null default now()
);

create index ai_requests_user_time on ai_requests (user_id, created_at);
create index ai_requests_time on ai_requests (created_at);

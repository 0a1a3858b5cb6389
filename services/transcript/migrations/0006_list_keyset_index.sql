-- The session list is read a page at a time in the order (session_timestamp, created_at, id),
-- newest first, continuing after the last row of the previous page. This index holds that
-- order per owner, so a page reads `limit` index entries whatever the number of sessions; it
-- supersedes the index on (owner_id, session_timestamp desc).
create index transcripts_owner_list on transcripts (owner_id, session_timestamp desc, created_at desc, id desc);
drop index transcripts_owner_timestamp;

-- The group list is read a page at a time in the order (created_at, id), continuing after the
-- last row of the previous page; this index holds that order per owner, so a page reads
-- `limit` index entries whatever the number of groups. It supersedes groups_owner.
create index groups_owner_list on groups (owner_id, created_at, id);
drop index groups_owner;

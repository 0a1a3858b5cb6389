-- Two more kinds of read-only link (issue #44): one character's story in a campaign
-- ('character-recap', the character named in `subject`) and a campaign's "previously on"
-- ('previously'). Both name the group by id, as a campaign's link does, and go with it.
alter table shares drop constraint shares_kind_check;
alter table shares add constraint shares_kind_check
  check (kind in ('transcript', 'group', 'character-recap', 'previously'));
alter table shares add column subject text not null default '';

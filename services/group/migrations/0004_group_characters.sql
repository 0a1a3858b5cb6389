-- Who is who in a campaign: the speaker tags of its players and the characters they play, as
-- the user set them (the group service checks the limits: 50 links, names of 1-80 characters,
-- one character per speaker). Rows go with their group.
create table group_characters (
  group_id uuid not null references groups (id) on delete cascade,
  speaker text not null check (char_length(speaker) between 1 and 80),
  character text not null check (char_length(character) between 1 and 80),
  position integer not null,
  primary key (group_id, speaker)
);

-- A live session can be a recording at the table (a browser's microphone, transcribed by the
-- voice bot's pipeline as its chunks arrive), beside the Discord bot and a replay.
alter table live_sessions drop constraint live_sessions_origin_check;
alter table live_sessions
  add constraint live_sessions_origin_check check (origin in ('discord', 'replay', 'table'));

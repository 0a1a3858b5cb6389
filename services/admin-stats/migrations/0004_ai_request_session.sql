-- The session an AI request was about (a session's recap, a chat about it), so each session
-- page can show what it cost; '' for requests about no one session (planning, the campaign).
alter table ai_requests add column transcript_id text not null default '';

create index ai_requests_transcript on ai_requests (user_id, transcript_id) where transcript_id <> '';
create index speech_stream_usage_transcript on speech_stream_usage (owner_id, transcript_id);
create index transcription_usage_transcript on transcription_usage (owner_id, transcript_id);

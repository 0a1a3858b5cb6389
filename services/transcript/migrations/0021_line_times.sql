-- Each line's start and end as the speech-to-text provider gave them, to the millisecond:
-- the content keeps whole seconds (`[hh:mm:ss]`, the transcript's text form), which cut
-- subtitle cues short (a segment at 2.5 s started at 00:00:02,000). One [start, end] pair per
-- stored line, in order; end null when the provider gave none. Null for sessions made before
-- or without a provider's times (pasted, live). Added only: the previous release ignores it.
alter table transcripts add column line_times jsonb;

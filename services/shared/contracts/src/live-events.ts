import {
  LiveSocketEvents,
  type FanoutDelivery,
  type LiveLine,
  type LiveTranscriptionEvent,
  type LiveUtterance,
  type SessionEndEvent,
} from './live.ts';

/**
 * The live socket's events, made where the data is: stored lines and session ends by
 * the transcript service as it stores them, interims by the gateway that takes them off the
 * bus. A line of a known user (speaker_info) goes out as user_*; a diarized speaker number as
 * interim_update / final_update.
 */
export function finalDelivery(
  transcriptId: string,
  sessionStartTime: string,
  line: LiveLine,
): FanoutDelivery {
  const payload: LiveTranscriptionEvent = {
    transcript_id: transcriptId,
    type: 'final',
    utterance_id: line.utterance_id,
    text: line.text,
    speaker_tag: line.speaker_tag,
    ...(line.speaker_info ? { speaker_info: line.speaker_info } : {}),
    timestamp: line.timestamp,
    session_start_time: sessionStartTime,
    start_seconds: line.start_seconds,
    end_seconds: line.end_seconds,
    seq: line.seq,
    ...(line.lost ? { lost: true as const } : {}),
  };
  return {
    transcript_id: transcriptId,
    event: line.speaker_info ? LiveSocketEvents.userFinal : LiveSocketEvents.final,
    payload,
  };
}

/** An interim as viewers get it (timed from now when the feed did not say when its session started). */
export function interimDelivery(u: LiveUtterance): FanoutDelivery {
  const start = u.session_start_time ?? null;
  const payload: LiveTranscriptionEvent = {
    transcript_id: u.transcript_id,
    type: 'interim',
    utterance_id: u.utterance_id,
    text: u.text,
    speaker_tag: u.speaker_tag,
    ...(u.speaker_info ? { speaker_info: u.speaker_info } : {}),
    timestamp: start
      ? new Date(Date.parse(start) + u.start_seconds * 1000).toISOString()
      : new Date().toISOString(),
    session_start_time: start ?? '',
    start_seconds: u.start_seconds,
    end_seconds: u.end_seconds,
  };
  return {
    transcript_id: u.transcript_id,
    event: u.speaker_info ? LiveSocketEvents.userInterim : LiveSocketEvents.interim,
    payload,
  };
}

export function sessionEndDelivery(end: Omit<SessionEndEvent, 'summary' | 'llm_summary'>): FanoutDelivery {
  const payload: SessionEndEvent = {
    transcript_id: end.transcript_id,
    name: end.name,
    summary: '',
    llm_summary: '',
    ended_at: end.ended_at,
    last_seq: end.last_seq,
    ...(end.error ? { error: end.error } : {}),
  };
  return { transcript_id: end.transcript_id, event: LiveSocketEvents.sessionEnd, payload };
}

/** The line a final delivery carries (final_update / user_final_update), or null for any other event. */
export function lineOfDelivery(d: FanoutDelivery): LiveLine | null {
  if (d.event !== LiveSocketEvents.final && d.event !== LiveSocketEvents.userFinal) return null;
  const e = d.payload as LiveTranscriptionEvent;
  if (e?.type !== 'final' || typeof e.seq !== 'number') return null;
  return {
    seq: e.seq,
    utterance_id: e.utterance_id,
    text: e.text,
    speaker_tag: e.speaker_tag,
    ...(e.speaker_info ? { speaker_info: e.speaker_info } : {}),
    start_seconds: e.start_seconds,
    end_seconds: e.end_seconds,
    timestamp: e.timestamp,
    ...(e.lost ? { lost: true as const } : {}),
  };
}

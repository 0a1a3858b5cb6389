import {
  LiveSocketEvents,
  type LiveLineStored,
  type LiveSessionClosed,
  type LiveTranscriptionEvent,
  type LiveUtterance,
  type SessionEndEvent,
} from '@chronicler/contracts';

/**
 * The socket events of 02 §3/§7 made from what the pipeline and the transcript service
 * publish. A line of a known user (speaker_info) goes out as user_*; a diarized speaker
 * number as interim_update / final_update.
 */
export function finalEvent(stored: LiveLineStored): { event: string; payload: LiveTranscriptionEvent } {
  const { line } = stored;
  return {
    event: line.speaker_info ? LiveSocketEvents.userFinal : LiveSocketEvents.final,
    payload: {
      transcript_id: stored.transcript_id,
      type: 'final',
      utterance_id: line.utterance_id,
      text: line.text,
      speaker_tag: line.speaker_tag,
      ...(line.speaker_info ? { speaker_info: line.speaker_info } : {}),
      timestamp: line.timestamp,
      session_start_time: stored.session_start_time,
      start_seconds: line.start_seconds,
      end_seconds: line.end_seconds,
      seq: line.seq,
    },
  };
}

export function interimEvent(
  u: LiveUtterance,
  sessionStartTime: string | null,
): { event: string; payload: LiveTranscriptionEvent } {
  const start = sessionStartTime ?? u.session_start_time ?? null;
  return {
    event: u.speaker_info ? LiveSocketEvents.userInterim : LiveSocketEvents.interim,
    payload: {
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
    },
  };
}

export function sessionEndEvent(closed: LiveSessionClosed): { event: string; payload: SessionEndEvent } {
  return {
    event: LiveSocketEvents.sessionEnd,
    payload: {
      transcript_id: closed.transcript_id,
      name: closed.name,
      summary: '',
      llm_summary: '',
      ended_at: closed.ended_at,
      last_seq: closed.last_seq,
      ...(closed.error ? { error: closed.error } : {}),
    },
  };
}

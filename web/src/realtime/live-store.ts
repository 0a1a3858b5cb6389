// The live transcript store: the protocol state machine over one socket (join with the last
// seq held, ask again for gaps, wait for missing lines at the session's end, connection status).
import {
  LiveSocketEvents,
  PREP_UPDATE_EVENT,
  type PrepUpdate,
  type JoinedTranscription,
  type LiveJoin,
  type LiveTranscriptionEvent,
  type SessionEndEvent,
} from '@chronicler/contracts';
import { hasText, interimKey, speakerKey, validLine, validStoredLine } from './live-events.ts';
import { createLineBuffer } from './live-lines.ts';
import type { LiveSnapshot, LiveSocketLike, LiveStatus, LiveTranscriptStore } from './live-types.ts';

/**
 * After session_end with lines missing, how long the client waits for them before it closes
 * anyway: the page refetches the stored transcript at the end, so nothing is lost by giving up.
 */
export const END_CATCH_UP_MS = 10_000;
/** A gap request unanswered this long is sent again when the next line shows the gap. */
const GAP_RETRY_MS = 5000;

/**
 * The live transcript of one session, fed by a socket.io socket (or a test's double). It
 * joins on every connect with the highest seq it holds without a gap, so a reconnect only
 * brings what was missed; replays and redeliveries of a seq it holds are ignored.
 */
export function createLiveTranscriptStore(transcriptId: string, socket: LiveSocketLike): LiveTranscriptStore {
  const buffer = createLineBuffer(() => changed());
  const listeners = new Set<() => void>();
  const endListeners = new Set<(event: SessionEndEvent) => void>();

  let status: LiveStatus = 'connecting';
  let everConnected = false;
  let closed = false;
  let sessionStartTime: string | null = null;
  /** The last gap request: one per gap, not one per line, unless its answer is overdue. */
  let gapRequest = { after: -1, at: 0 };
  let pendingEnd: SessionEndEvent | null = null;
  let endTimer: ReturnType<typeof setTimeout> | undefined;
  let snapshot: LiveSnapshot = makeSnapshot();

  function makeSnapshot(): LiveSnapshot {
    return {
      status,
      lines: buffer.lines(),
      interims: buffer.interimList(),
      sessionStartTime,
      content: buffer.content,
      contentSeq: buffer.contentSeq,
    };
  }

  function changed() {
    snapshot = makeSnapshot();
    for (const listener of listeners) listener();
  }

  function join() {
    const payload: LiveJoin = { transcriptId, last_seq: buffer.contiguous };
    socket.emit(LiveSocketEvents.join, payload);
  }

  function requestGap() {
    const now = Date.now();
    if (gapRequest.after === buffer.contiguous && now - gapRequest.at < GAP_RETRY_MS) return;
    gapRequest = { after: buffer.contiguous, at: now };
    join();
  }

  function noteStart(value: unknown) {
    if (hasText(value) && value !== sessionStartTime) sessionStartTime = value;
  }

  const forOtherTranscript = (event: { transcript_id?: unknown }) =>
    typeof event.transcript_id === 'string' && event.transcript_id !== transcriptId;

  function onInterim(event: LiveTranscriptionEvent, userLine: boolean) {
    if (!validLine(event, userLine)) {
      console.warn('Live transcription: interim line without utterance_id, text or speaker; ignored', event);
      return;
    }
    if (buffer.hasFinalOf(event.utterance_id)) return;
    noteStart(event.session_start_time);
    const key = interimKey(event.utterance_id, speakerKey(event));
    buffer.putInterim({
      key,
      utterance_id: event.utterance_id,
      text: event.text,
      speaker_tag: event.speaker_tag,
      speaker_info: event.speaker_info,
      start_seconds: event.start_seconds,
      timestamp: event.timestamp,
    });
    changed();
  }

  function onFinal(event: LiveTranscriptionEvent, userLine: boolean) {
    // A lost marker (its final never reached the server) has no text, but holds its seq.
    const lost = event.lost === true;
    if (lost ? !validStoredLine(event) : !validLine(event, userLine)) {
      console.warn('Live transcription: final line without utterance_id, text or speaker; ignored', event);
      return;
    }
    if (!Number.isInteger(event.seq) || (event.seq as number) < 1) {
      console.warn('Live transcription: final line without a seq; ignored', event);
      return;
    }
    noteStart(event.session_start_time);
    const seq = event.seq as number;
    buffer.addFinal({
      seq,
      utterance_id: event.utterance_id,
      text: lost ? '' : event.text,
      speaker_tag: event.speaker_tag,
      speaker_info: event.speaker_info,
      start_seconds: event.start_seconds,
      end_seconds: event.end_seconds,
      timestamp: event.timestamp,
      ...(lost ? { lost: true as const } : {}),
    });
    buffer.advanceContiguous();
    // Still above the run of held lines: some before it were missed (a dropped delivery).
    if (seq > buffer.contiguous) requestGap();
    changed();
    maybeFinishEnd();
  }

  function onInitial(event: LiveTranscriptionEvent) {
    noteStart(event.session_start_time);
    const before = buffer.contiguous;
    if (Array.isArray(event.lines) && event.lines.length > 0) {
      for (const line of event.lines) {
        if (!validStoredLine(line)) {
          console.warn('Live transcription: stored line without seq, utterance_id or text; ignored', line);
          continue;
        }
        buffer.addFinal(line);
      }
    } else if (
      typeof event.content === 'string' &&
      // Text older than what is held (a late answer) would take lines off the screen.
      !(Number.isInteger(event.seq) && (event.seq as number) < buffer.contentSeq) &&
      // No lines: the text is the whole transcript so far. An empty `lines` list with text
      // while nothing is held is a transcript whose text was not written line by line.
      (!Array.isArray(event.lines) || (buffer.holdsNothing() && event.content.trim()))
    ) {
      buffer.setContent(event.content, event.seq);
    }
    buffer.advanceContiguous();
    // Still a gap after an answer that brought something: the server cut its answer, ask on.
    if (buffer.contiguous > before && buffer.contiguous < buffer.highestHeld()) requestGap();
    changed();
    maybeFinishEnd();
  }

  function onContentUpdate(event: LiveTranscriptionEvent) {
    if (typeof event.content !== 'string') {
      console.warn('Live transcription: content_update without content; ignored', event);
      return;
    }
    noteStart(event.session_start_time);
    buffer.setContent(event.content, event.seq);
    buffer.advanceContiguous();
    changed();
    maybeFinishEnd();
  }

  function onLineEvent(raw: unknown, kind: 'interim' | 'final', userLine: boolean) {
    if (closed || status === 'ended') return;
    if (!raw || typeof raw !== 'object') {
      console.warn('Live transcription: unreadable event; ignored', raw);
      return;
    }
    const event = raw as LiveTranscriptionEvent;
    if (forOtherTranscript(event)) return;
    if (event.type === 'initial') onInitial(event);
    else if (event.type === 'content_update') onContentUpdate(event);
    else if (kind === 'interim') onInterim(event, userLine);
    else onFinal(event, userLine);
  }

  function finishEnd(event: SessionEndEvent) {
    if (status === 'ended') return;
    clearTimeout(endTimer);
    pendingEnd = null;
    status = 'ended';
    buffer.dropAllInterims();
    changed();
    // Closing before the listeners run: whatever they do, this socket never reconnects.
    closed = true;
    socket.disconnect();
    for (const listener of endListeners) listener(event);
  }

  function maybeFinishEnd() {
    if (pendingEnd && buffer.contiguous >= pendingEnd.last_seq) finishEnd(pendingEnd);
  }

  /**
   * `ask`: send a join for the missing lines. Not when the join being answered already brings
   * them (a joined-transcription that says the session has ended).
   */
  function onSessionEnd(raw: unknown, ask = true) {
    if (closed || status === 'ended') return;
    const event = (raw && typeof raw === 'object' ? raw : {}) as SessionEndEvent;
    if (forOtherTranscript(event)) return;
    const lastSeq = Number.isInteger(event.last_seq) ? event.last_seq : 0;
    const end = { ...event, transcript_id: transcriptId, last_seq: lastSeq };
    if (buffer.contiguous >= lastSeq) {
      finishEnd(end);
      return;
    }
    // Lines are missing: fetch the rest first, so the last words are not lost on screen.
    const waiting = pendingEnd !== null;
    pendingEnd = end;
    if (waiting) return;
    if (ask) {
      gapRequest = { after: buffer.contiguous, at: Date.now() };
      join();
    }
    endTimer = setTimeout(() => {
      if (pendingEnd) finishEnd(pendingEnd);
    }, END_CATCH_UP_MS);
  }

  function onJoined(raw: unknown) {
    if (closed || status === 'ended' || !raw || typeof raw !== 'object') return;
    const joined = raw as JoinedTranscription;
    if (forOtherTranscript(joined)) return;
    noteStart(joined.session_start_time);
    status = 'live';
    changed();
    // Joined a session that ended while this client was away: close once the rest is here
    // (the answer to this join brings it).
    if (joined.status === 'ended') {
      onSessionEnd(
        {
          transcript_id: transcriptId,
          name: '',
          summary: '',
          llm_summary: '',
          ended_at: '',
          last_seq: Number.isInteger(joined.last_seq) ? joined.last_seq : 0,
        },
        false,
      );
    }
  }

  const on = (event: string, listener: (arg: unknown) => void) =>
    socket.on(event, listener as (...args: never[]) => void);

  on('connect', () => {
    if (closed || status === 'ended') {
      socket.disconnect();
      return;
    }
    everConnected = true;
    // The join asks for everything after the held run: it answers any gap request too.
    gapRequest = { after: buffer.contiguous, at: Date.now() };
    join();
  });
  on('disconnect', (reason) => {
    if (closed || status === 'ended') return;
    // Interims are only meaningful while connected: their finals may arrive in the catch-up.
    buffer.dropAllInterims();
    // The server sent us away on purpose: socket.io does not retry that by itself.
    status = reason === 'io server disconnect' ? 'offline' : 'reconnecting';
    changed();
  });
  on('connect_error', (error) => {
    if (closed || status === 'ended') return;
    console.warn('Live transcription: connection failed', error);
    // Not active: the server refused the handshake (no retry follows); otherwise it retries.
    status = !socket.active ? 'offline' : everConnected ? 'reconnecting' : 'connecting';
    changed();
  });
  socket.io.on('reconnect_failed', () => {
    if (closed || status === 'ended') return;
    status = 'offline';
    changed();
  });
  on(LiveSocketEvents.joined, onJoined);
  on(LiveSocketEvents.interim, (event) => onLineEvent(event, 'interim', false));
  on(LiveSocketEvents.userInterim, (event) => onLineEvent(event, 'interim', true));
  on(LiveSocketEvents.final, (event) => onLineEvent(event, 'final', false));
  on(LiveSocketEvents.userFinal, (event) => onLineEvent(event, 'final', true));
  on(LiveSocketEvents.sessionEnd, onSessionEnd);
  on(LiveSocketEvents.error, (error) => {
    console.warn('Live transcription: the server refused the join', error);
  });
  const prepListeners = new Set<(update: PrepUpdate) => void>();
  on(PREP_UPDATE_EVENT, (raw) => {
    const update = raw as Partial<PrepUpdate> | null;
    if (closed || !update || update.transcript_id !== transcriptId || !Array.isArray(update.items)) return;
    for (const l of prepListeners) l(update as PrepUpdate);
  });

  return {
    getSnapshot: () => snapshot,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onEnd(listener) {
      endListeners.add(listener);
      return () => endListeners.delete(listener);
    },
    onPrepUpdate(listener) {
      prepListeners.add(listener);
      return () => prepListeners.delete(listener);
    },
    close() {
      if (closed) return;
      closed = true;
      clearTimeout(endTimer);
      buffer.dropAllInterims();
      socket.disconnect();
    },
  };
}

// The live transcription socket: socket.io at the site origin,
// path /socket.io, with the stored token in the auth payload and transcript_id in the query.
// The protocol is live.ts in the contracts: every stored final line carries a per-transcript
// `seq`, so the client can tell a redelivery from a new line and a gap from the end.
import {
  INTERIM_LIFETIME_MS,
  LiveSocketEvents,
  type JoinedTranscription,
  type LiveJoin,
  type LiveLine,
  type LiveTranscriptionEvent,
  type SessionEndEvent,
  type SpeakerInfo,
} from '@chronicler/contracts';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { io } from 'socket.io-client';
import { refreshAccess } from '../api/refresh.ts';
import { getStoredToken } from '../features/auth/auth-storage.ts';

/** Up to 5 reconnect attempts, 2 s apart (the library adds its jitter and 5 s cap). */
const LIVE_RECONNECT_ATTEMPTS = 5;
const LIVE_RECONNECT_DELAY_MS = 2000;
/**
 * After session_end with lines missing, how long the client waits for them before it closes
 * anyway: the page refetches the stored transcript at the end, so nothing is lost by giving up.
 */
export const END_CATCH_UP_MS = 10_000;
/** A gap request unanswered this long is sent again when the next line shows the gap. */
const GAP_RETRY_MS = 5000;

export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'offline';

/** An utterance still being spoken: shown until its final arrives, or for 30 s at most. */
export interface LiveInterim {
  /** utterance_id + speaker: a later interim with the same key replaces this one. */
  key: string;
  utterance_id: string;
  text: string;
  speaker_tag: number | string;
  speaker_info?: SpeakerInfo;
  start_seconds: number;
  timestamp: string;
}

export interface LiveSnapshot {
  status: LiveStatus;
  /** Final lines ordered by seq; those at or below `contentSeq` are already inside `content`. */
  lines: readonly LiveLine[];
  interims: readonly LiveInterim[];
  sessionStartTime: string | null;
  /**
   * The whole final text as the server last sent it ('initial' without lines, or
   * 'content_update'), covering every line up to `contentSeq`; null when none was sent.
   */
  content: string | null;
  contentSeq: number;
}

/** The part of socket.io-client's Socket the store uses; a test drives it with a double. */
export interface LiveSocketLike {
  /** False once the client will not try again by itself (refused by the server, or closed). */
  readonly active: boolean;
  on(event: string, listener: (...args: never[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
  disconnect(): unknown;
  /** The Manager: reconnect_failed says the 5 attempts are spent. */
  readonly io: { on(event: string, listener: (...args: never[]) => void): unknown };
}

export interface LiveTranscriptStore {
  getSnapshot(): LiveSnapshot;
  subscribe(listener: () => void): () => void;
  /** Called once when the session has ended (after any missing lines arrived). */
  onEnd(listener: (event: SessionEndEvent) => void): () => void;
  /** The page leaves: close without marking the session ended. */
  close(): void;
}

const interimKey = (utteranceId: string, speaker: string) => `${utteranceId}\u0000${speaker}`;

const speakerKey = (event: { speaker_tag?: unknown; speaker_info?: SpeakerInfo }) =>
  event.speaker_info?.displayName ?? String(event.speaker_tag ?? '');

const hasText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** A line needs utterance_id and text; a user_* line also the speaker's displayName; others are dropped. */
function validLine(event: Partial<LiveTranscriptionEvent> | null | undefined, userLine: boolean): boolean {
  if (!event || typeof event !== 'object') return false;
  if (!hasText(event.utterance_id) || !hasText(event.text)) return false;
  if (userLine && !hasText(event.speaker_info?.displayName)) return false;
  return true;
}

/** A stored line; a lost marker (its final never reached the server) has no text but holds its seq. */
function validStoredLine(line: Partial<LiveLine> | null | undefined): line is LiveLine {
  return Boolean(
    line &&
    Number.isInteger(line.seq) &&
    (line.seq as number) >= 1 &&
    hasText(line.utterance_id) &&
    (hasText(line.text) || line.lost === true),
  );
}

/**
 * The live transcript of one session, fed by a socket.io socket (or a test's double). It
 * joins on every connect with the highest seq it holds without a gap, so a reconnect only
 * brings what was missed; replays and redeliveries of a seq it holds are ignored.
 */
export function createLiveTranscriptStore(transcriptId: string, socket: LiveSocketLike): LiveTranscriptStore {
  const finals = new Map<number, LiveLine>();
  /** Utterances whose final is held: a late interim of one of them is stale. */
  const finalUtterances = new Set<string>();
  const interims = new Map<string, LiveInterim>();
  const interimTimers = new Map<string, ReturnType<typeof setTimeout>>();
  const listeners = new Set<() => void>();
  const endListeners = new Set<(event: SessionEndEvent) => void>();

  let status: LiveStatus = 'connecting';
  let everConnected = false;
  let closed = false;
  let sessionStartTime: string | null = null;
  let content: string | null = null;
  let contentSeq = 0;
  /** Every seq up to this one is held (as a line or inside `content`). */
  let contiguous = 0;
  /** The highest seq held at all (above `contiguous` while there is a gap). */
  let maxSeq = 0;
  /** The last gap request: one per gap, not one per line, unless its answer is overdue. */
  let gapRequest = { after: -1, at: 0 };
  let pendingEnd: SessionEndEvent | null = null;
  let endTimer: ReturnType<typeof setTimeout> | undefined;
  let orderedLines: LiveLine[] = [];
  let linesDirty = false;
  let snapshot: LiveSnapshot = makeSnapshot();

  function makeSnapshot(): LiveSnapshot {
    if (linesDirty) {
      orderedLines = [...finals.values()].sort((a, b) => a.seq - b.seq);
      linesDirty = false;
    }
    return {
      status,
      lines: orderedLines,
      interims: [...interims.values()],
      sessionStartTime,
      content,
      contentSeq,
    };
  }

  function changed() {
    snapshot = makeSnapshot();
    for (const listener of listeners) listener();
  }

  const highestHeld = () => Math.max(contiguous, maxSeq);

  function advanceContiguous() {
    contiguous = Math.max(contiguous, contentSeq);
    while (finals.has(contiguous + 1)) contiguous += 1;
  }

  function join() {
    const payload: LiveJoin = { transcriptId, last_seq: contiguous };
    socket.emit(LiveSocketEvents.join, payload);
  }

  function requestGap() {
    const now = Date.now();
    if (gapRequest.after === contiguous && now - gapRequest.at < GAP_RETRY_MS) return;
    gapRequest = { after: contiguous, at: now };
    join();
  }

  function dropInterim(key: string) {
    clearTimeout(interimTimers.get(key));
    interimTimers.delete(key);
    interims.delete(key);
  }

  function dropAllInterims() {
    for (const timer of interimTimers.values()) clearTimeout(timer);
    interimTimers.clear();
    interims.clear();
  }

  function dropInterimsOf(utteranceId: string) {
    for (const [key, interim] of interims) if (interim.utterance_id === utteranceId) dropInterim(key);
  }

  /** Adds a stored line unless its seq is held; true when it was new. */
  function addFinal(line: LiveLine): boolean {
    finalUtterances.add(line.utterance_id);
    dropInterimsOf(line.utterance_id);
    if (line.seq <= contentSeq || finals.has(line.seq)) return false;
    finals.set(line.seq, line);
    maxSeq = Math.max(maxSeq, line.seq);
    linesDirty = true;
    return true;
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
    if (finalUtterances.has(event.utterance_id)) return;
    noteStart(event.session_start_time);
    const key = interimKey(event.utterance_id, speakerKey(event));
    clearTimeout(interimTimers.get(key));
    interims.set(key, {
      key,
      utterance_id: event.utterance_id,
      text: event.text,
      speaker_tag: event.speaker_tag,
      speaker_info: event.speaker_info,
      start_seconds: event.start_seconds,
      timestamp: event.timestamp,
    });
    interimTimers.set(
      key,
      setTimeout(() => {
        dropInterim(key);
        changed();
      }, INTERIM_LIFETIME_MS),
    );
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
    addFinal({
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
    advanceContiguous();
    // Still above the run of held lines: some before it were missed (a dropped delivery).
    if (seq > contiguous) requestGap();
    changed();
    maybeFinishEnd();
  }

  function onInitial(event: LiveTranscriptionEvent) {
    noteStart(event.session_start_time);
    const before = contiguous;
    if (Array.isArray(event.lines) && event.lines.length > 0) {
      for (const line of event.lines) {
        if (!validStoredLine(line)) {
          console.warn('Live transcription: stored line without seq, utterance_id or text; ignored', line);
          continue;
        }
        addFinal(line);
      }
    } else if (
      typeof event.content === 'string' &&
      // Text older than what is held (a late answer) would take lines off the screen.
      !(Number.isInteger(event.seq) && (event.seq as number) < contentSeq) &&
      // No lines: the text is the whole transcript so far. An empty `lines` list with text
      // while nothing is held is a transcript whose text was not written line by line.
      (!Array.isArray(event.lines) || (finals.size === 0 && content === null && event.content.trim()))
    ) {
      setContent(event.content, event.seq);
    }
    advanceContiguous();
    // Still a gap after an answer that brought something: the server cut its answer, ask on.
    if (contiguous > before && contiguous < highestHeld()) requestGap();
    changed();
    maybeFinishEnd();
  }

  /** The whole final text replaces what is held up to `seq` (all held lines when absent). */
  function setContent(text: string, seq: number | undefined) {
    content = text;
    contentSeq = Number.isInteger(seq) ? Math.max(0, seq as number) : highestHeld();
    for (const held of [...finals.keys()]) {
      if (held <= contentSeq) finals.delete(held);
    }
    linesDirty = true;
  }

  function onContentUpdate(event: LiveTranscriptionEvent) {
    if (typeof event.content !== 'string') {
      console.warn('Live transcription: content_update without content; ignored', event);
      return;
    }
    noteStart(event.session_start_time);
    setContent(event.content, event.seq);
    advanceContiguous();
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
    dropAllInterims();
    changed();
    // Closing before the listeners run: whatever they do, this socket never reconnects.
    closed = true;
    socket.disconnect();
    for (const listener of endListeners) listener(event);
  }

  function maybeFinishEnd() {
    if (pendingEnd && contiguous >= pendingEnd.last_seq) finishEnd(pendingEnd);
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
    if (contiguous >= lastSeq) {
      finishEnd(end);
      return;
    }
    // Lines are missing: fetch the rest first, so the last words are not lost on screen.
    const waiting = pendingEnd !== null;
    pendingEnd = end;
    if (waiting) return;
    if (ask) {
      gapRequest = { after: contiguous, at: Date.now() };
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
    // The join asks for everything after `contiguous`: it answers any gap request too.
    gapRequest = { after: contiguous, at: Date.now() };
    join();
  });
  on('disconnect', (reason) => {
    if (closed || status === 'ended') return;
    // Interims are only meaningful while connected: their finals may arrive in the catch-up.
    dropAllInterims();
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
    close() {
      if (closed) return;
      closed = true;
      clearTimeout(endTimer);
      dropAllInterims();
      socket.disconnect();
    },
  };
}

/**
 * Opens the socket for a transcript: the site origin, path /socket.io, websocket first then
 * polling. Without a transcript id or a stored token it does not connect (the problem is
 * logged only, nothing shown) and gives null.
 */
function connectLiveTranscript(transcriptId: string): LiveTranscriptStore | null {
  const token = getStoredToken();
  if (!transcriptId || !token) {
    console.warn(
      `Live transcription: not connecting (${!transcriptId ? 'no transcript id' : 'no auth token stored'})`,
    );
    return null;
  }
  let sent: string | null = token;
  const socket = io({
    path: '/socket.io',
    transports: ['websocket', 'polling'],
    // Read at every (re)connect: the stored token is replaced before it expires.
    auth: (cb) => {
      sent = getStoredToken() ?? token;
      cb({ token: sent });
    },
    query: { transcript_id: transcriptId },
    reconnection: true,
    reconnectionAttempts: LIVE_RECONNECT_ATTEMPTS,
    reconnectionDelay: LIVE_RECONNECT_DELAY_MS,
    // Its own connection: io() otherwise shares one per origin, keeping the first query.
    forceNew: true,
  });
  // A handshake refused for an expired token is not retried by socket.io: refresh the token
  // once and connect again with it.
  let refreshedForThis = false;
  socket.on('connect', () => {
    refreshedForThis = false;
  });
  socket.on('connect_error', (error: Error & { data?: { status?: number } }) => {
    if (socket.active || refreshedForThis || error.data?.status !== 401) return;
    refreshedForThis = true;
    void refreshAccess(sent).then((refreshed) => {
      if (refreshed && !socket.connected) socket.connect();
    });
  });
  return createLiveTranscriptStore(transcriptId, socket);
}

const OFFLINE: LiveSnapshot = {
  status: 'offline',
  lines: [],
  interims: [],
  sessionStartTime: null,
  content: null,
  contentSeq: 0,
};

const CONNECTING: LiveSnapshot = { ...OFFLINE, status: 'connecting' };

const noopSubscribe = () => () => {};

/**
 * The live transcript of a session while `enabled` (an active session): one socket per
 * mounted viewer, closed when the viewer leaves or `enabled` turns false. `onEnd` runs
 * once when the session ends (the page refetches what it shows).
 */
export function useLiveTranscript(
  transcriptId: string,
  enabled: boolean,
  onEnd?: (event: SessionEndEvent) => void,
  connect: (transcriptId: string) => LiveTranscriptStore | null = connectLiveTranscript,
): LiveSnapshot {
  const [opened, setOpened] = useState<{ id: string; store: LiveTranscriptStore | null } | null>(null);
  const onEndRef = useRef(onEnd);
  useEffect(() => {
    onEndRef.current = onEnd;
  });

  useEffect(() => {
    if (!enabled) return;
    const store = connect(transcriptId);
    setOpened({ id: transcriptId, store });
    if (!store) return;
    const stopListening = store.onEnd((event) => onEndRef.current?.(event));
    return () => {
      stopListening();
      store.close();
      setOpened(null);
    };
  }, [transcriptId, enabled, connect]);

  const current = enabled && opened?.id === transcriptId ? opened : null;
  const store = current?.store ?? null;
  // Before the effect has run the socket is about to open; a refused open (no token) is offline.
  const idle = enabled && !current ? CONNECTING : OFFLINE;
  return useSyncExternalStore(
    store ? store.subscribe : noopSubscribe,
    store ? store.getSnapshot : () => idle,
  );
}

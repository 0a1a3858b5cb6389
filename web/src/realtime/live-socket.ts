// The live transcription socket: socket.io at the site origin,
// path /socket.io, with the stored token in the auth payload and transcript_id in the query.
// The protocol is live.ts in the contracts: every stored final line carries a per-transcript
// `seq`, so the client can tell a redelivery from a new line and a gap from the end.
// This file opens the socket and gives the hook; live-store.ts holds the protocol.
import type { PrepUpdate, SessionEndEvent } from '@chronicler/contracts';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { io } from 'socket.io-client';
import { refreshAccess } from '../api/refresh.ts';
import { getStoredToken } from '../features/auth/auth-storage.ts';
import { createLiveTranscriptStore } from './live-store.ts';
import type { LiveSnapshot, LiveStatus, LiveTranscriptStore } from './live-types.ts';

/** Up to 5 reconnect attempts, 2 s apart (the library adds its jitter and 5 s cap). */
const LIVE_RECONNECT_ATTEMPTS = 5;
const LIVE_RECONNECT_DELAY_MS = 2000;

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
  /** Prepared items of the session's campaign that it just ticked (prep_update). */
  onPrep?: (update: PrepUpdate) => void,
  connect: (transcriptId: string) => LiveTranscriptStore | null = connectLiveTranscript,
): LiveSnapshot {
  const [opened, setOpened] = useState<{ id: string; store: LiveTranscriptStore | null } | null>(null);
  const onEndRef = useRef(onEnd);
  const onPrepRef = useRef(onPrep);
  useEffect(() => {
    onEndRef.current = onEnd;
    onPrepRef.current = onPrep;
  });

  useEffect(() => {
    if (!enabled) return;
    const store = connect(transcriptId);
    setOpened({ id: transcriptId, store });
    if (!store) return;
    const stopListening = store.onEnd((event) => onEndRef.current?.(event));
    const stopPrep = store.onPrepUpdate((update) => onPrepRef.current?.(update));
    return () => {
      stopListening();
      stopPrep();
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

/**
 * The prepared items a live session ticks, while `transcriptId` names one (the planning page
 * of its campaign): the session's room on the live socket, for its prep_update events and its
 * end. Gives the connection's status ('offline' without a session).
 */
export function useLivePrep(
  transcriptId: string | null,
  onPrep: (update: PrepUpdate) => void,
  onEnd: () => void,
): LiveStatus {
  const handlers = useRef({ onPrep, onEnd });
  useEffect(() => {
    handlers.current = { onPrep, onEnd };
  });
  const [store, setStore] = useState<LiveTranscriptStore | null>(null);
  useEffect(() => {
    if (!transcriptId) return;
    const opened = connectLiveTranscript(transcriptId);
    setStore(opened);
    if (!opened) return;
    const stopPrep = opened.onPrepUpdate((u) => handlers.current.onPrep(u));
    const stopEnd = opened.onEnd(() => handlers.current.onEnd());
    return () => {
      stopPrep();
      stopEnd();
      opened.close();
      setStore(null);
    };
  }, [transcriptId]);
  const snapshot = useSyncExternalStore(
    store ? store.subscribe : noopSubscribe,
    store ? store.getSnapshot : () => OFFLINE,
  );
  return snapshot.status;
}

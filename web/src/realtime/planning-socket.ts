// The planning socket (02 §7): /api/ws/planning?token=&group_id=, JSON frames both ways. The
// client sends {type: 'chat_message', content, canvasContent, selection, selectedText}; the
// server sends chat_history, message and error frames. Leaving closes with 1000.
import type { PlanningEditorContext, PlanningMessage, PlanningServerFrame } from '@chronicler/contracts';
import { API_BASE } from '../api/http.ts';
import { getStoredToken } from '../features/auth/auth-storage.ts';

/** 02 §9: a dropped socket is opened again up to 5 times, 2 s apart. */
const RECONNECT_MS = 2000;
const RECONNECT_ATTEMPTS = 5;

export interface PlanningSocketHandlers {
  /** The stored conversation of the group, sent on every (re)connect. */
  onHistory(messages: PlanningMessage[]): void;
  onMessage(message: PlanningMessage): void;
  /** An error frame from the server, or the socket closing while a reply was awaited. */
  onError(error: string): void;
}

export interface PlanningSocket {
  /** Whether the socket is open now (the workspace polls it every second). */
  isConnected(): boolean;
  /** Sends a message with the editor's context; false when nothing was sent. */
  send(content: string, editor: PlanningEditorContext): boolean;
  close(): void;
}

/** The socket's address: the API base on the same origin unless VITE_API_BASE names another. */
export function planningSocketUrl(groupId: string, token: string): string {
  const url = new URL(`${API_BASE}/ws/planning`, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('token', token);
  url.searchParams.set('group_id', groupId);
  return url.toString();
}

function parseFrame(data: unknown): PlanningServerFrame | null {
  if (typeof data !== 'string') return null;
  try {
    const frame = JSON.parse(data) as Partial<PlanningServerFrame> | null;
    if (!frame || typeof frame !== 'object' || typeof frame.type !== 'string') return null;
    return frame as PlanningServerFrame;
  } catch {
    return null;
  }
}

/** Opens the group's planning socket; without a stored token it never connects (and says so). */
export function openPlanningSocket(groupId: string, handlers: PlanningSocketHandlers): PlanningSocket {
  let socket: WebSocket | null = null;
  let closedByUs = false;
  let retry: number | undefined;
  let attempts = 0;

  const connect = () => {
    const token = getStoredToken();
    if (!token) {
      console.error('Planning: no auth token, not connecting');
      return;
    }
    const ws = new WebSocket(planningSocketUrl(groupId, token));
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      attempts = 0;
    };
    ws.onmessage = (event: MessageEvent) => {
      const frame = parseFrame(event.data);
      if (!frame) {
        console.error('Planning: unreadable message from the server', event.data);
        return;
      }
      if (frame.type === 'chat_history') handlers.onHistory(frame.messages);
      else if (frame.type === 'message') handlers.onMessage(frame.message);
      else if (frame.type === 'error') handlers.onError(frame.error);
      else console.warn('Planning: unknown message type', (frame as { type: string }).type);
    };
    ws.onclose = (event: CloseEvent) => {
      if (socket === ws) socket = null;
      if (closedByUs) return;
      if (opened) handlers.onError('Connection lost');
      if (attempts >= RECONNECT_ATTEMPTS) {
        console.error('Planning: giving up after', attempts, 'reconnect attempts', event.code);
        return;
      }
      attempts += 1;
      retry = window.setTimeout(connect, RECONNECT_MS);
    };
  };
  connect();

  return {
    isConnected: () => socket?.readyState === WebSocket.OPEN,
    send(content, editor) {
      if (!getStoredToken()) {
        console.error('Planning: no auth token, message not sent');
        return false;
      }
      if (!socket || socket.readyState !== WebSocket.OPEN) return false;
      socket.send(
        JSON.stringify({
          type: 'chat_message',
          content,
          canvasContent: editor.content,
          selection: editor.selection,
          selectedText: editor.selectedText,
        }),
      );
      return true;
    },
    close() {
      closedByUs = true;
      window.clearTimeout(retry);
      const ws = socket;
      socket = null;
      if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) ws.close(1000);
    },
  };
}

// The chat socket (02 §7): /api/ws/chat?token=&transcript_id=, JSON frames both ways. The
// client sends {type: 'chat_message', content}; the server sends chat_history, message and
// error frames. Leaving closes with 1000 'Client navigated away'.
import { CHAT_CLIENT_CLOSE_REASON, type ChatMessage, type ChatServerFrame } from '@chronicler/contracts';
import { API_BASE } from '../api/http.ts';
import { getStoredToken } from '../features/auth/auth-storage.ts';

/** A socket that dropped after it was open is opened again this long after. */
const RECONNECT_MS = 2000;

export interface ChatSocketHandlers {
  /** The stored conversation, sent on every (re)connect. */
  onHistory(messages: ChatMessage[]): void;
  onMessage(message: ChatMessage): void;
  /** An error frame from the server. */
  onError(error: string): void;
  /** The socket opened or closed; a close while a reply was awaited means no reply will come. */
  onConnectionChange(connected: boolean): void;
}

export interface ChatSocket {
  /** Sends a question; false when the socket is not open (nothing was sent). */
  send(content: string): boolean;
  close(): void;
}

/**
 * The socket's address: the API base (VITE_API_BASE, which may name another backend) on
 * the same origin by default, with ws: or wss: to match. The stored token goes in the query;
 * without one the browser's access-token cookie signs the handshake in.
 */
export function chatSocketUrl(transcriptId: string): string {
  const url = new URL(`${API_BASE}/ws/chat`, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const token = getStoredToken();
  if (token) url.searchParams.set('token', token);
  url.searchParams.set('transcript_id', transcriptId);
  return url.toString();
}

function parseFrame(data: unknown): ChatServerFrame | null {
  if (typeof data !== 'string') return null;
  try {
    const frame = JSON.parse(data) as Partial<ChatServerFrame> | null;
    if (!frame || typeof frame !== 'object' || typeof frame.type !== 'string') return null;
    return frame as ChatServerFrame;
  } catch {
    return null;
  }
}

export function openChatSocket(transcriptId: string, handlers: ChatSocketHandlers): ChatSocket {
  let socket: WebSocket | null = null;
  let closedByUs = false;
  let retry: number | undefined;

  const connect = () => {
    const ws = new WebSocket(chatSocketUrl(transcriptId));
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      handlers.onConnectionChange(true);
    };
    ws.onmessage = (event: MessageEvent) => {
      const frame = parseFrame(event.data);
      if (!frame) {
        console.error('Chat: unreadable message from the server', event.data);
        return;
      }
      if (frame.type === 'chat_history') handlers.onHistory(frame.messages);
      else if (frame.type === 'message') handlers.onMessage(frame.message);
      else if (frame.type === 'error') handlers.onError(frame.error);
      else console.warn('Chat: unknown message type', (frame as { type: string }).type);
    };
    ws.onclose = (event: CloseEvent) => {
      if (socket === ws) socket = null;
      handlers.onConnectionChange(false);
      if (closedByUs) return;
      // A refused handshake never opens: asking again would be refused again.
      if (!opened) {
        console.error('Chat: connection refused', event.code, event.reason);
        return;
      }
      retry = window.setTimeout(connect, RECONNECT_MS);
    };
  };
  connect();

  return {
    send(content) {
      if (!socket || socket.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify({ type: 'chat_message', content }));
      return true;
    },
    close() {
      closedByUs = true;
      window.clearTimeout(retry);
      const ws = socket;
      socket = null;
      if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) {
        ws.close(1000, CHAT_CLIENT_CLOSE_REASON);
      }
    },
  };
}

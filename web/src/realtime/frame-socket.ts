// The chat and planning sockets share one shape: a URL under the API base with a one-time
// ticket (never the token: URLs end up in logs) and an id in the query, JSON frames both ways, the server sending chat_history,
// message and error frames, reconnects up to 5 times 2 s apart, and a close with 1000.
import { getSocketTicket } from '../api/auth.ts';
import { API_BASE } from '../api/http.ts';
import { getStoredToken } from '../features/auth/auth-storage.ts';

const RECONNECT_MS = 2000;
const RECONNECT_ATTEMPTS = 5;

type ServerFrame<M> =
  | { type: 'chat_history'; messages: M[] }
  | { type: 'message'; message: M }
  | { type: 'error'; error: string };

export interface FrameSocketHandlers<M> {
  /** The stored conversation, sent on every (re)connect. */
  onHistory(messages: M[]): void;
  onMessage(message: M): void;
  /** An error frame from the server, or 'Connection lost' when an open socket drops. */
  onError(error: string): void;
  /** The socket opened or closed. */
  onConnectionChange?(connected: boolean): void;
}

export interface FrameSocketOptions {
  /** Names the socket in the console: 'Chat', 'Planning'. */
  label: string;
  /** Under the API base, e.g. '/ws/chat'. */
  path: string;
  params: Record<string, string>;
  /** Without a stored token: connect anyway (the access-token cookie may sign in) or not at all. */
  tokenRequired: boolean;
  /** Sent with code 1000 when the page closes the socket. */
  closeReason?: string;
}

export interface FrameSocket {
  isConnected(): boolean;
  /** Sends a frame; false when the socket is not open (nothing was sent). */
  send(frame: Record<string, unknown>): boolean;
  close(): void;
}

/**
 * The socket's address: the API base (VITE_API_BASE, which may name another backend) on the
 * same origin by default, with ws: or wss: to match, and the one-time ticket when there is one.
 */
function frameSocketUrl(opts: FrameSocketOptions, ticket: string | null): string {
  const url = new URL(`${API_BASE}${opts.path}`, window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  // The specification's `token` parameter, holding a one-time code, never the access token.
  if (ticket) url.searchParams.set('token', ticket);
  for (const [key, value] of Object.entries(opts.params)) url.searchParams.set(key, value);
  return url.toString();
}

/**
 * A fresh ticket for one connect (a ticket opens one socket, within a minute), or null when a
 * required token is missing. Without a ticket (none could be had) the cookie may still sign in.
 */
async function socketAddress(opts: FrameSocketOptions): Promise<string | null> {
  if (!getStoredToken() && opts.tokenRequired) return null;
  try {
    return frameSocketUrl(opts, (await getSocketTicket()).ticket);
  } catch (error) {
    console.warn(`${opts.label}: no socket ticket; trying the cookie`, error);
    return frameSocketUrl(opts, null);
  }
}

function parseFrame<M>(data: unknown): ServerFrame<M> | null {
  if (typeof data !== 'string') return null;
  try {
    const frame = JSON.parse(data) as Partial<ServerFrame<M>> | null;
    if (!frame || typeof frame !== 'object' || typeof frame.type !== 'string') return null;
    return frame as ServerFrame<M>;
  } catch {
    return null;
  }
}

export function openFrameSocket<M>(opts: FrameSocketOptions, handlers: FrameSocketHandlers<M>): FrameSocket {
  let socket: WebSocket | null = null;
  let closedByUs = false;
  let retry: number | undefined;
  let attempts = 0;

  const connect = async () => {
    const address = await socketAddress(opts);
    if (closedByUs) return;
    if (!address) {
      console.error(`${opts.label}: no auth token, not connecting`);
      return;
    }
    const ws = new WebSocket(address);
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      attempts = 0;
      handlers.onConnectionChange?.(true);
    };
    ws.onmessage = (event: MessageEvent) => {
      const frame = parseFrame<M>(event.data);
      if (!frame) {
        console.error(`${opts.label}: unreadable message from the server`, event.data);
        return;
      }
      if (frame.type === 'chat_history') handlers.onHistory(frame.messages);
      else if (frame.type === 'message') handlers.onMessage(frame.message);
      else if (frame.type === 'error') handlers.onError(frame.error);
      else console.warn(`${opts.label}: unknown message type`, (frame as { type: string }).type);
    };
    ws.onclose = (event: CloseEvent) => {
      if (socket === ws) socket = null;
      handlers.onConnectionChange?.(false);
      if (closedByUs) return;
      if (opened) handlers.onError('Connection lost');
      if (attempts >= RECONNECT_ATTEMPTS) {
        console.error(
          `${opts.label}: giving up after ${attempts} reconnect attempts`,
          event.code,
          event.reason,
        );
        return;
      }
      attempts += 1;
      retry = window.setTimeout(() => void connect(), RECONNECT_MS);
    };
  };
  void connect();

  return {
    isConnected: () => socket?.readyState === WebSocket.OPEN,
    send(frame) {
      if (!socket || socket.readyState !== WebSocket.OPEN) return false;
      socket.send(JSON.stringify(frame));
      return true;
    },
    close() {
      closedByUs = true;
      window.clearTimeout(retry);
      const ws = socket;
      socket = null;
      if (ws && (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING)) {
        ws.close(1000, opts.closeReason);
      }
    },
  };
}

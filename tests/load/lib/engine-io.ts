/**
 * The socket.io wire protocol (socket.io v5 over Engine.IO v4), the part a live viewer needs,
 * as pure string functions: k6 has no socket.io client, so the k6 script speaks it over k6/ws
 * and the Node driver (tests/bench/load.ts) over `ws`, with these same functions.
 *
 * Engine.IO packets are one character of type then the payload: 0 open (JSON handshake),
 * 1 close, 2 ping, 3 pong, 4 message, 6 noop. A message carries a socket.io packet: 0 CONNECT
 * (payload: the auth object), 1 DISCONNECT, 2 EVENT (a JSON array [name, ...args]), 3 ACK,
 * 4 CONNECT_ERROR. Over websocket the server pings every pingInterval ms and the client answers
 * "3", or the server closes the socket after pingTimeout.
 */

/** ws(s)://host/socket.io/?EIO=4&transport=websocket for an http(s) base URL. */
export function socketIoUrl(baseUrl: string): string {
  return `${baseUrl.replace(/^http/, 'ws').replace(/\/$/, '')}/socket.io/?EIO=4&transport=websocket`;
}

export type Incoming =
  | { kind: 'open'; sid: string; pingInterval: number; pingTimeout: number }
  | { kind: 'ping' }
  | { kind: 'close' }
  | { kind: 'connected'; sid: string }
  | { kind: 'connect_error'; message: string }
  | { kind: 'disconnect' }
  | { kind: 'event'; name: string; args: unknown[] }
  | { kind: 'other'; raw: string };

/** Decodes one websocket frame from the server. */
export function decode(frame: string): Incoming {
  const type = frame[0];
  const rest = frame.slice(1);
  if (type === '0') {
    const open = JSON.parse(rest) as { sid: string; pingInterval: number; pingTimeout: number };
    return { kind: 'open', sid: open.sid, pingInterval: open.pingInterval, pingTimeout: open.pingTimeout };
  }
  if (type === '2') return { kind: 'ping' };
  if (type === '1') return { kind: 'close' };
  if (type !== '4') return { kind: 'other', raw: frame };
  const sio = rest[0];
  // A namespace other than "/" would follow as "/name,": only the main one is used here.
  const payload = rest.slice(1);
  if (sio === '0')
    return { kind: 'connected', sid: (JSON.parse(payload || '{}') as { sid?: string }).sid ?? '' };
  if (sio === '4') {
    const err = JSON.parse(payload || '{}') as { message?: string };
    return { kind: 'connect_error', message: err.message ?? payload };
  }
  if (sio === '1') return { kind: 'disconnect' };
  if (sio === '2') {
    // An ack id may sit between the type and the array: skip digits.
    const arr = JSON.parse(payload.replace(/^\d+/, '')) as [string, ...unknown[]];
    return { kind: 'event', name: arr[0], args: arr.slice(1) };
  }
  return { kind: 'other', raw: frame };
}

/** The answer to a server ping. */
export const PONG = '3';

/** socket.io CONNECT to the main namespace with an auth payload (the gateway reads `token`). */
export function connectPacket(auth: Record<string, unknown>): string {
  return `40${JSON.stringify(auth)}`;
}

/** socket.io EVENT: emit(name, ...args). */
export function eventPacket(name: string, ...args: unknown[]): string {
  return `42${JSON.stringify([name, ...args])}`;
}

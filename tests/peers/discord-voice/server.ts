import { randomBytes, randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { VOICE_TLS_CERT, VOICE_TLS_KEY } from './trust.ts';
import { DaveRoom } from './dave.ts';
import { DaveOp } from './dave-protocol.ts';
import { isMode, MODES, openRtp, sealRtp, type EncryptionMode } from './rtp.ts';

/**
 * A Discord voice server for tests: the voice gateway (version 8, JSON plus DAVE's binary
 * frames, over TLS as on Discord: @discordjs/voice always dials `wss://<endpoint>?v=8`) and the
 * voice UDP socket (IP discovery, RTP in the two AEAD "rtpsize" modes). It relays each client's
 * audio to everyone else in the same channel, re-encrypted with the recipient's key, as
 * Discord's SFU does, and in the guilds of `daveGuilds` plays Discord's part in DAVE (dave.ts).
 * See services/voice-bot/README.md for the table of what it implements.
 */

/** Voice gateway opcodes (Discord's numbering). */
export const Op = {
  Identify: 0,
  SelectProtocol: 1,
  Ready: 2,
  Heartbeat: 3,
  SessionDescription: 4,
  Speaking: 5,
  HeartbeatAck: 6,
  Resume: 7,
  Hello: 8,
  Resumed: 9,
  ClientsConnect: 11,
  ClientDisconnect: 13,
} as const;

/** Close codes a client must handle (Discord's). */
export const Close = {
  UnknownOpcode: 4001,
  DecodeError: 4002,
  NotAuthenticated: 4003,
  AuthenticationFailed: 4004,
  AlreadyAuthenticated: 4005,
  SessionNoLongerValid: 4006,
  ServerNotFound: 4011,
  UnknownProtocol: 4012,
  Disconnected: 4014,
  VoiceServerCrashed: 4015,
  UnknownEncryptionMode: 4016,
  /** "Disconnected: Rate Limited — Do not reconnect." */
  RateLimited: 4021,
  /** "Disconnected: Call Terminated — the channel was terminated. Do not reconnect." */
  CallTerminated: 4022,
} as const;

/** Who the gateway told the voice server to expect (its VOICE_STATE_UPDATE + VOICE_SERVER_UPDATE). */
interface Expected {
  guildId: string;
  channelId: string;
  userId: string;
  sessionId: string;
  token: string;
}

interface Client extends Expected {
  ws: WebSocket | null;
  ssrc: number;
  udp: { address: string; port: number } | null;
  mode: EncryptionMode | null;
  key: Uint8Array | null;
  /** The recipient-side nonce counter for packets this server seals for the client. */
  nonce: number;
  /** The DAVE protocol version its session was described with. */
  daveVersion: number;
  /** Server messages carrying `seq`, kept for a resume. */
  sent: { seq: number; data: string | Buffer }[];
  seq: number;
  /** Highest `seq_ack` the client's heartbeats carried. */
  seqAck: number;
  speaking: number;
  /**
   * The SSRCs (other clients' connections) this client was sent, or will never be sent, a
   * Speaking op for: Discord sends op 5 about once per user, and none for a member who was
   * already speaking when this client connected (see the Speaking handler).
   */
  announced: Set<number>;
  selfDeaf: boolean;
  maxDaveVersion: number;
}

interface VoiceFaults {
  /** Fraction of relayed packets dropped. */
  loss: number;
  /** Fraction of relayed packets held back and sent after the next one. */
  reorder: number;
  /** Relayed packets sealed with a key the recipient does not have (they fail to decrypt). */
  wrongKey: boolean;
  /**
   * DAVE: users the next proposals and commits are not sent to (and whose ready and
   * invalid-commit messages are ignored): the group moves to a new epoch without them, as when
   * a client misses a transition, and what they receive stops decrypting.
   */
  daveStranded: Set<string>;
  /** DAVE: users that miss the next transition, then get the proposals after it (dave.ts). */
  daveMissNext: Set<string>;
  /** DAVE: users the next commit is announced to garbled (an invalid commit, dave.ts). */
  daveCorruptCommit: Set<string>;
  /** DAVE: messages from a user lost before the gateway, by opcode (28 commit, 23 ready). */
  daveDropFrom: Map<string, Set<number>>;
  /**
   * Users each of whose voice sessions is closed with this code as soon as it is described (a
   * voice server that keeps failing them; 4006 "Session no longer valid" cannot be resumed).
   */
  closeSessions: Map<string, number>;
}

export interface VoiceServerEvent {
  userId: string;
  guildId: string;
  kind: 'identify' | 'resume' | 'select' | 'heartbeat' | 'speaking' | 'close' | 'dropped';
  detail?: Record<string, unknown>;
}

export interface VoiceServer {
  /** host:port, what VOICE_SERVER_UPDATE's `endpoint` carries. */
  readonly endpoint: string;
  readonly udpPort: number;
  readonly faults: VoiceFaults;
  /** The modes Ready offers, in order of preference (the client takes the first it supports). */
  modes: EncryptionMode[];
  /**
   * Voice joins (identifies) of one user in one guild allowed per minute; the next is closed
   * with 4021, "Disconnected: Rate Limited — Do not reconnect" (discord-api-docs, Opcodes and
   * Status Codes, Voice Close Event Codes). Discord publishes no number; this is the peer's.
   */
  joinsPerMinute: number;
  /** Guilds whose sessions are described with DAVE (protocol 1) to clients that can do it. */
  readonly daveGuilds: Set<string>;
  /** The DAVE state of a channel, once a DAVE session was described in it. */
  daveRoom(guildId: string, channelId: string): Promise<DaveRoom> | undefined;
  /** Everything the clients did, in order (identifies, resumes, heartbeats with seq_ack, ...). */
  readonly events: VoiceServerEvent[];
  expect(e: Expected & { selfDeaf?: boolean }): void;
  /** The user left the channel: Client Disconnect to the others, their socket closed with 4014. */
  forget(guildId: string, userId: string): void;
  /** Drops the user's voice WebSocket without a close frame (a network failure). */
  dropSocket(guildId: string, userId: string): void;
  /** Closes the user's voice WebSocket with a code (4014, 4015, ...). */
  closeSocket(guildId: string, userId: string, code: number): void;
  /** Users connected (identified and not gone) in a guild. */
  connected(guildId: string): string[];
  /** Speaking ops (op 5) about one user sent to another. */
  speakingSent(guildId: string, fromUserId: string, toUserId: string): number;
  /** Packets relayed to a user. */
  relayedTo(guildId: string, userId: string): number;
  /** Of those, the ones whose payload is a DAVE frame (ending in the 0xFAFA magic marker). */
  daveFramesTo(guildId: string, userId: string): number;
  /** Packets from one user relayed to another whose payload is not Opus's silence frame (speech). */
  voicedRelayed(guildId: string, fromUserId: string, toUserId: string): number;
  stop(): Promise<void>;
}

const HEARTBEAT_MS = 13_750;
/** See {@link VoiceServer.joinsPerMinute}. */
const JOINS_PER_MINUTE = 30;
/** Opus's silence frame, which clients send five of when they stop speaking. */
const OPUS_SILENCE = Buffer.from([0xf8, 0xff, 0xfe]);

export async function startVoiceServer(
  opts: { heartbeatMs?: number; onEvent?: (e: VoiceServerEvent) => void } = {},
): Promise<VoiceServer> {
  const expected = new Map<string, Expected & { selfDeaf: boolean }>();
  const clients = new Map<string, Client>();
  const bySsrc = new Map<number, Client>();
  const relayed = new Map<string, number>();
  const daveFrames = new Map<string, number>();
  const voiced = new Map<string, number>();
  const speakingOps = new Map<string, number>();
  const joins = new Map<string, number[]>();
  const held = new Map<string, Buffer>();
  const keyOf = (guildId: string, userId: string): string => `${guildId}:${userId}`;
  let nextSsrc = randomInt(1000, 50_000);

  const keep = (c: Client, data: string | Buffer): void => {
    c.sent.push({ seq: c.seq, data });
    if (c.sent.length > 200) c.sent.shift();
    c.ws?.send(data);
  };
  const send = (c: Client, op: number, d: unknown): void => {
    c.seq++;
    keep(c, JSON.stringify({ op, d, seq: c.seq }));
  };
  /** DAVE's binary frames: sequence (u16), opcode (u8), payload. */
  const sendBinary = (c: Client, op: number, payload: Buffer): void => {
    c.seq++;
    const head = Buffer.alloc(3);
    head.writeUInt16BE(c.seq & 0xffff, 0);
    head.writeUInt8(op, 2);
    keep(c, Buffer.concat([head, payload]));
  };
  const daveRooms = new Map<string, Promise<DaveRoom>>();
  /** A client that can do DAVE, in a guild that uses it. */
  const daveCapable = (c: Client): boolean => server.daveGuilds.has(c.guildId) && c.maxDaveVersion >= 1;
  const daveRoomOf = (c: Client): Promise<DaveRoom> => {
    const k = `${c.guildId}:${c.channelId}`;
    let room = daveRooms.get(k);
    if (!room) {
      const member = (userId: string) => clients.get(keyOf(c.guildId, userId));
      room = DaveRoom.create(c.channelId, server.faults, {
        json: (userId, op, d) => {
          const m = member(userId);
          if (m) send(m, op, d);
        },
        binary: (userId, op, payload) => {
          const m = member(userId);
          if (m) sendBinary(m, op, payload);
        },
        connected: () =>
          [...clients.values()]
            .filter((o) => o.guildId === c.guildId && o.channelId === c.channelId && daveCapable(o))
            .map((o) => o.userId),
      });
      daveRooms.set(k, room);
    }
    return room;
  };
  const roomOf = (c: Client): Client[] =>
    [...clients.values()].filter((o) => o !== c && o.guildId === c.guildId && o.channelId === c.channelId);

  const https: Server = createServer({
    cert: readFileSync(VOICE_TLS_CERT),
    key: readFileSync(VOICE_TLS_KEY),
  });
  const wss = new WebSocketServer({ server: https });
  const udp = dgram.createSocket('udp4');

  const server: VoiceServer = {
    endpoint: '',
    udpPort: 0,
    faults: {
      loss: 0,
      reorder: 0,
      wrongKey: false,
      daveStranded: new Set(),
      daveMissNext: new Set(),
      daveCorruptCommit: new Set(),
      daveDropFrom: new Map(),
      closeSessions: new Map(),
    },
    modes: [...MODES],
    joinsPerMinute: JOINS_PER_MINUTE,
    daveGuilds: new Set(),
    daveRoom(guildId, channelId) {
      return daveRooms.get(`${guildId}:${channelId}`);
    },
    events: [],
    expect(e) {
      expected.set(keyOf(e.guildId, e.userId), { ...e, selfDeaf: e.selfDeaf ?? false });
    },
    forget(guildId, userId) {
      const k = keyOf(guildId, userId);
      expected.delete(k);
      const c = clients.get(k);
      if (!c) return;
      leave(c);
      c.ws?.close(Close.Disconnected, 'Disconnected');
    },
    dropSocket(guildId, userId) {
      clients.get(keyOf(guildId, userId))?.ws?.terminate();
    },
    closeSocket(guildId, userId, code) {
      clients.get(keyOf(guildId, userId))?.ws?.close(code);
    },
    connected(guildId) {
      return [...clients.values()].filter((c) => c.guildId === guildId).map((c) => c.userId);
    },
    speakingSent(guildId, fromUserId, toUserId) {
      return speakingOps.get(`${keyOf(guildId, fromUserId)}>${toUserId}`) ?? 0;
    },
    relayedTo(guildId, userId) {
      return relayed.get(keyOf(guildId, userId)) ?? 0;
    },
    daveFramesTo(guildId, userId) {
      return daveFrames.get(keyOf(guildId, userId)) ?? 0;
    },
    voicedRelayed(guildId, fromUserId, toUserId) {
      return voiced.get(`${keyOf(guildId, fromUserId)}>${toUserId}`) ?? 0;
    },
    async stop() {
      for (const c of clients.values()) c.ws?.terminate();
      wss.close();
      udp.close();
      https.closeAllConnections();
      await new Promise<void>((r) => https.close(() => r()));
    },
  };

  function leave(c: Client): void {
    clients.delete(keyOf(c.guildId, c.userId));
    bySsrc.delete(c.ssrc);
    for (const o of roomOf(c)) send(o, Op.ClientDisconnect, { user_id: c.userId });
    if (daveCapable(c)) void daveRoomOf(c).then((r) => r.left(c.userId));
    else if (server.daveGuilds.has(c.guildId) && roomOf(c).every(daveCapable)) {
      // The last client without DAVE left: the channel goes back to DAVE.
      void daveRoomOf(c).then((r) => r.upgrade());
    }
  }

  wss.on('connection', (ws, req) => {
    const version = new URL(req.url ?? '/', 'https://voice').searchParams.get('v');
    if (version !== '8') {
      ws.close(Close.UnknownProtocol, 'This peer speaks voice gateway v8 only');
      return;
    }
    let client: Client | null = null;
    ws.send(JSON.stringify({ op: Op.Hello, d: { heartbeat_interval: opts.heartbeatMs ?? HEARTBEAT_MS } }));
    ws.on('message', (raw, isBinary) => {
      if (isBinary) {
        // DAVE's binary frames from a client: opcode (u8), payload.
        const buf = raw as Buffer;
        const c = client;
        if (!c || !daveCapable(c)) return ws.close(Close.UnknownOpcode, 'No DAVE session');
        const op = buf.readUInt8(0);
        if (server.faults.daveDropFrom.get(c.userId)?.has(op)) return event(c, 'dropped', { op });
        const payload = Buffer.from(buf.subarray(1));
        if (op === DaveOp.MlsKeyPackage) void daveRoomOf(c).then((r) => r.keyPackage(c.userId, payload));
        else if (op === DaveOp.MlsCommitWelcome)
          void daveRoomOf(c).then((r) => r.commitWelcome(c.userId, payload));
        else ws.close(Close.UnknownOpcode, 'Unknown opcode');
        return;
      }
      let msg: { op: number; d: Record<string, unknown> };
      try {
        msg = JSON.parse(String(raw)) as typeof msg;
      } catch {
        ws.close(Close.DecodeError, 'Failed to decode payload');
        return;
      }
      const d = msg.d ?? {};
      if (msg.op === Op.Heartbeat) {
        if (client) {
          client.seqAck = Math.max(client.seqAck, Number(d.seq_ack ?? -1));
          event(client, 'heartbeat', { seq_ack: d.seq_ack });
        }
        ws.send(JSON.stringify({ op: Op.HeartbeatAck, d: { t: d.t } }));
      } else if (msg.op === Op.Identify) {
        if (client) return ws.close(Close.AlreadyAuthenticated, 'Already authenticated');
        const e = expected.get(keyOf(String(d.server_id), String(d.user_id)));
        if (!e) return ws.close(Close.ServerNotFound, 'Server not found');
        if (e.sessionId !== d.session_id || e.token !== d.token) {
          return ws.close(Close.AuthenticationFailed, 'Authentication failed');
        }
        const now = Date.now();
        const recent = (joins.get(keyOf(e.guildId, e.userId)) ?? []).filter((t) => now - t < 60_000);
        recent.push(now);
        joins.set(keyOf(e.guildId, e.userId), recent);
        if (recent.length > server.joinsPerMinute) return ws.close(Close.RateLimited, 'Rate limited');
        const old = clients.get(keyOf(e.guildId, e.userId));
        if (old) {
          old.ws?.close(Close.SessionNoLongerValid, 'Session is no longer valid');
          leave(old);
        }
        client = {
          ...e,
          ws,
          ssrc: nextSsrc++,
          udp: null,
          mode: null,
          key: null,
          nonce: 0,
          sent: [],
          seq: 0,
          seqAck: -1,
          speaking: 0,
          announced: new Set(),
          daveVersion: 0,
          maxDaveVersion: Number(d.max_dave_protocol_version ?? 0),
        };
        clients.set(keyOf(e.guildId, e.userId), client);
        bySsrc.set(client.ssrc, client);
        event(client, 'identify', { max_dave_protocol_version: client.maxDaveVersion });
        send(client, Op.Ready, {
          ssrc: client.ssrc,
          ip: '127.0.0.1',
          port: server.udpPort,
          modes: server.modes,
          heartbeat_interval: 1, // deprecated field Discord still sends; clients use Hello's
        });
        const others = roomOf(client);
        // Members already speaking as this client connects are never announced to it: Discord
        // sends a user's op 5 once (discord.js#3524: "there is just one initial speaking event
        // to tie the various ID's together"; Discord.Net#1430), and a member talking when the
        // client joins gets none (Discord.Net#3208: "permanently unable to hear them"). Only
        // the ops 11/13 user lists say who is there; @discordjs/voice maps SSRCs from op 5
        // alone (VoiceReceiver.onWsPacket) and drops packets of an unknown SSRC (onUdpMessage).
        for (const o of others) if (o.speaking !== 0) client.announced.add(o.ssrc);
        if (others.length) send(client, Op.ClientsConnect, { user_ids: others.map((o) => o.userId) });
        for (const o of others) send(o, Op.ClientsConnect, { user_ids: [client.userId] });
      } else if (msg.op === Op.Resume) {
        const c = [...clients.values()].find(
          (x) => x.guildId === d.server_id && x.sessionId === d.session_id && x.token === d.token,
        );
        if (!c) return ws.close(Close.SessionNoLongerValid, 'Session is no longer valid');
        if (c.ws && c.ws !== ws) c.ws.terminate();
        c.ws = ws;
        client = c;
        const ack = Number(d.seq_ack ?? -1);
        event(c, 'resume', { seq_ack: ack });
        for (const m of c.sent) if (m.seq > ack) ws.send(m.data);
        send(c, Op.Resumed, null);
      } else if (!client) {
        ws.close(Close.NotAuthenticated, 'Not authenticated');
      } else if (msg.op === Op.SelectProtocol) {
        const data = (d.data ?? {}) as { address?: string; port?: number; mode?: string };
        if (d.protocol !== 'udp') return ws.close(Close.UnknownProtocol, 'Unknown protocol');
        if (!isMode(data.mode) || !server.modes.includes(data.mode))
          return ws.close(Close.UnknownEncryptionMode, 'Unknown encryption mode');
        client.mode = data.mode;
        client.key = randomBytes(32);
        client.udp = { address: String(data.address), port: Number(data.port) };
        event(client, 'select', { mode: data.mode, address: data.address, port: data.port });
        // DAVE only while every client in the channel can do it (else all are downgraded).
        const everyone = [client, ...roomOf(client)];
        client.daveVersion = everyone.every(daveCapable) ? 1 : 0;
        send(client, Op.SessionDescription, {
          audio_codec: 'opus',
          video_codec: null,
          media_session_id: randomBytes(16).toString('hex'),
          mode: client.mode,
          secret_key: [...client.key],
          dave_protocol_version: client.daveVersion,
        });
        const c = client;
        const closeWith = server.faults.closeSessions.get(c.userId);
        if (closeWith) {
          ws.close(closeWith, 'Session is no longer valid');
          return;
        }
        if (c.daveVersion > 0) void daveRoomOf(c).then((r) => r.joined(c.userId));
        else if (server.daveGuilds.has(c.guildId) && !daveCapable(c) && roomOf(c).some(daveCapable)) {
          void daveRoomOf(c).then((r) => r.downgrade());
        }
      } else if (msg.op === Op.Speaking) {
        client.speaking = Number(d.speaking ?? 0);
        event(client, 'speaking', { speaking: client.speaking, ssrc: d.ssrc });
        for (const o of roomOf(client)) {
          // About once per user (see Identify): the first time this connection speaks after the
          // recipient connected, never again, and never if it was already speaking then.
          if (client.speaking === 0 || o.announced.has(client.ssrc)) continue;
          o.announced.add(client.ssrc);
          const k = `${keyOf(client.guildId, client.userId)}>${o.userId}`;
          speakingOps.set(k, (speakingOps.get(k) ?? 0) + 1);
          send(o, Op.Speaking, { user_id: client.userId, ssrc: client.ssrc, speaking: client.speaking });
        }
      } else if (msg.op === DaveOp.TransitionReady && daveCapable(client)) {
        const c = client;
        if (server.faults.daveDropFrom.get(c.userId)?.has(msg.op)) return event(c, 'dropped', { op: msg.op });
        void daveRoomOf(c).then((r) => r.ready(c.userId, Number(d.transition_id)));
      } else if (msg.op === DaveOp.MlsInvalidCommitWelcome && daveCapable(client)) {
        const c = client;
        void daveRoomOf(c).then((r) => r.invalid(c.userId));
      } else {
        ws.close(Close.UnknownOpcode, 'Unknown opcode');
      }
    });
    ws.on('close', (code) => {
      if (!client || client.ws !== ws) return;
      event(client, 'close', { code });
      client.ws = null;
      // 1000 is the client leaving (VoiceConnection.destroy); any other close keeps the session
      // for a Resume, as Discord does for a while.
      if (code === 1000) leave(client);
    });
  });

  function event(c: Client, kind: VoiceServerEvent['kind'], detail?: Record<string, unknown>): void {
    const e = { userId: c.userId, guildId: c.guildId, kind, detail };
    server.events.push(e);
    opts.onEvent?.(e);
  }

  udp.on('message', (msg, rinfo) => {
    if (msg.length === 74 && msg.readUInt16BE(0) === 1 && msg.readUInt16BE(2) === 70) {
      // IP discovery: type 1 request, length 70, SSRC; answered with type 2 and the address seen.
      if (!bySsrc.has(msg.readUInt32BE(4))) return;
      const reply = Buffer.alloc(74);
      reply.writeUInt16BE(2, 0);
      reply.writeUInt16BE(70, 2);
      reply.writeUInt32BE(msg.readUInt32BE(4), 4);
      reply.write(rinfo.address, 8, 'utf8');
      reply.writeUInt16BE(rinfo.port, 72);
      udp.send(reply, rinfo.port, rinfo.address);
      return;
    }
    if (msg.length <= 12 || msg[0]! >> 6 !== 2) return; // keep-alives (8-byte counters) and noise
    const from = bySsrc.get(msg.readUInt32BE(8));
    if (!from?.key || !from.mode || from.udp?.port !== rinfo.port) return;
    let packet;
    try {
      packet = openRtp(msg, from.mode, from.key);
    } catch {
      return; // does not authenticate: dropped, as Discord drops it
    }
    for (const to of roomOf(from)) relay(from, to, packet);
  });

  // Which packets the loss and reorder faults take: a fixed pseudo-random sequence (mulberry32),
  // so a test sees the same 5 % of its packets go each run instead of, now and then, a run of
  // them inside one short word, which the speech peer's level matcher cannot place.
  let faultState = 0x9e3779b9;
  const faultDraw = (): number => {
    faultState = (faultState + 0x6d2b79f5) >>> 0;
    let t = faultState;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  function relay(from: Client, to: Client, packet: ReturnType<typeof openRtp>): void {
    if (!to.key || !to.mode || !to.udp || to.selfDeaf) return;
    const { loss, reorder, wrongKey } = server.faults;
    if (loss > 0 && faultDraw() < loss) return;
    to.nonce = (to.nonce + 1) >>> 0;
    const sealed = sealRtp(packet, to.mode, wrongKey ? randomBytes(32) : to.key, to.nonce);
    const k = keyOf(to.guildId, to.userId);
    relayed.set(k, (relayed.get(k) ?? 0) + 1);
    const p = packet.payload;
    if (!p.equals(OPUS_SILENCE)) {
      const v = `${keyOf(from.guildId, from.userId)}>${to.userId}`;
      voiced.set(v, (voiced.get(v) ?? 0) + 1);
    }
    if (p.length > 2 && p[p.length - 1] === 0xfa && p[p.length - 2] === 0xfa) {
      daveFrames.set(k, (daveFrames.get(k) ?? 0) + 1);
    }
    const { address, port } = to.udp;
    if (reorder > 0 && !held.has(k) && faultDraw() < reorder) {
      held.set(k, sealed);
      return;
    }
    udp.send(sealed, port, address);
    const late = held.get(k);
    if (late) {
      held.delete(k);
      udp.send(late, port, address);
    }
  }

  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
  await new Promise<void>((r) => https.listen(0, '127.0.0.1', () => r()));
  (server as { endpoint: string }).endpoint = `127.0.0.1:${(https.address() as AddressInfo).port}`;
  (server as { udpPort: number }).udpPort = udp.address().port;
  return server;
}

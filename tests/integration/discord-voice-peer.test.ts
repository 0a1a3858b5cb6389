import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { Close, Op, startVoiceServer, type VoiceServer } from '../peers/discord-voice/server.ts';

// The Discord peer's voice server on its own, driven by a bare WebSocket and UDP socket: the
// handshake and the close codes a client must handle, as Discord's voice gateway v8 answers
// them. (The bot's own @discordjs/voice against it is in voice-bot-wire.test.ts.)
describe('the Discord peer’s voice server', () => {
  let voice: VoiceServer;
  const who = { guildId: '1100', channelId: '1200', userId: '1300', sessionId: 'sess-1', token: 'tok-1' };

  beforeAll(async () => {
    voice = await startVoiceServer();
    voice.expect(who);
  });
  afterAll(() => voice?.stop());

  type Msg = { op: number; d: Record<string, unknown>; seq?: number };
  /** A socket with its received messages and, once closed, its close code. */
  function connect(query = '?v=8') {
    const ws = new WebSocket(`wss://${voice.endpoint}${query}`);
    const msgs: Msg[] = [];
    const waiters = new Set<() => void>();
    let code: number | null = null;
    const wake = (): void => waiters.forEach((w) => w());
    ws.on('message', (raw) => {
      msgs.push(JSON.parse(String(raw)) as Msg);
      wake();
    });
    ws.on('close', (c) => {
      code = c;
      wake();
    });
    const until = <T>(check: () => T | undefined): Promise<T> =>
      new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('voice peer test: timed out')), 10_000);
        const w = (): void => {
          const v = check();
          if (v === undefined) return;
          waiters.delete(w);
          clearTimeout(t);
          resolve(v);
        };
        waiters.add(w);
        w();
      });
    return {
      send: (op: number, d: unknown) => ws.send(JSON.stringify({ op, d })),
      message: (op: number) => until(() => msgs.find((m) => m.op === op)),
      closed: () => until(() => code ?? undefined),
    };
  }
  const identify = (over: Record<string, unknown> = {}) => ({
    server_id: who.guildId,
    user_id: who.userId,
    session_id: who.sessionId,
    token: who.token,
    max_dave_protocol_version: 0,
    ...over,
  });

  it('says Hello, identifies, answers IP discovery, describes the session, acks heartbeats, and resumes', async () => {
    const c = connect();
    expect((await c.message(Op.Hello)).d.heartbeat_interval).toBeGreaterThan(0);
    c.send(Op.Heartbeat, { t: 1234, seq_ack: -1 });
    expect((await c.message(Op.HeartbeatAck)).d).toEqual({ t: 1234 });
    c.send(Op.Identify, identify());
    const ready = await c.message(Op.Ready);
    expect(ready.seq).toBe(1);
    expect(ready.d).toMatchObject({ ip: '127.0.0.1', port: voice.udpPort, modes: voice.modes });
    const ssrc = Number(ready.d.ssrc);

    const udp = dgram.createSocket('udp4');
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
    const request = Buffer.alloc(74);
    request.writeUInt16BE(1, 0);
    request.writeUInt16BE(70, 2);
    request.writeUInt32BE(ssrc, 4);
    const reply = await new Promise<Buffer>((resolve) => {
      udp.once('message', resolve);
      udp.send(request, voice.udpPort, '127.0.0.1');
    });
    expect(reply.length).toBe(74);
    expect([reply.readUInt16BE(0), reply.readUInt16BE(2), reply.readUInt32BE(4)]).toEqual([2, 70, ssrc]);
    expect(reply.subarray(8, reply.indexOf(0, 8)).toString()).toBe('127.0.0.1');
    expect(reply.readUInt16BE(72)).toBe(udp.address().port);
    udp.close();

    c.send(Op.SelectProtocol, {
      protocol: 'udp',
      data: { address: '127.0.0.1', port: 5000, mode: 'aead_xchacha20_poly1305_rtpsize' },
    });
    const description = await c.message(Op.SessionDescription);
    expect(description.seq).toBe(2);
    expect(description.d).toMatchObject({
      mode: 'aead_xchacha20_poly1305_rtpsize',
      dave_protocol_version: 0,
    });
    expect(description.d.secret_key).toHaveLength(32);

    // Dropped without a close frame, then resumed from seq 1: the Session Description again.
    voice.dropSocket(who.guildId, who.userId);
    await c.closed();
    const r = connect();
    await r.message(Op.Hello);
    r.send(Op.Resume, { server_id: who.guildId, session_id: who.sessionId, token: who.token, seq_ack: 1 });
    expect((await r.message(Op.SessionDescription)).seq).toBe(2);
    expect((await r.message(Op.Resumed)).seq).toBe(3);
    voice.closeSocket(who.guildId, who.userId, 1000);
    await r.closed();
  });

  it.each([
    ['a gateway version other than 8', '?v=4', null, Close.UnknownProtocol],
    ['anything before Identify', '?v=8', [Op.SelectProtocol, { protocol: 'udp' }], Close.NotAuthenticated],
    ['a wrong token', '?v=8', [Op.Identify, identify({ token: 'nope' })], Close.AuthenticationFailed],
    ['an unknown server', '?v=8', [Op.Identify, identify({ server_id: '9' })], Close.ServerNotFound],
    [
      'a resume of an unknown session',
      '?v=8',
      [Op.Resume, { server_id: who.guildId, session_id: 'gone', token: who.token, seq_ack: 3 }],
      Close.SessionNoLongerValid,
    ],
  ] as const)('closes the socket on %s', async (_what, query, frame, code) => {
    const c = connect(query);
    if (frame) {
      await c.message(Op.Hello);
      c.send(frame[0], frame[1]);
    }
    expect(await c.closed()).toBe(code);
  });

  it('closes with 4005 on a second Identify, 4016 on a mode it did not offer, 4001 on an unknown opcode, 4014 when the user leaves', async () => {
    const a = connect();
    await a.message(Op.Hello);
    a.send(Op.Identify, identify());
    await a.message(Op.Ready);
    a.send(Op.Identify, identify());
    expect(await a.closed()).toBe(Close.AlreadyAuthenticated);

    const b = connect();
    await b.message(Op.Hello);
    b.send(Op.Identify, identify());
    await b.message(Op.Ready);
    b.send(Op.SelectProtocol, {
      protocol: 'udp',
      data: { address: '127.0.0.1', port: 1, mode: 'xsalsa20_poly1305' },
    });
    expect(await b.closed()).toBe(Close.UnknownEncryptionMode);

    const u = connect();
    await u.message(Op.Hello);
    u.send(Op.Identify, identify());
    await u.message(Op.Ready);
    u.send(99, {});
    expect(await u.closed()).toBe(Close.UnknownOpcode);

    const c = connect();
    await c.message(Op.Hello);
    c.send(Op.Identify, identify());
    await c.message(Op.Ready);
    voice.forget(who.guildId, who.userId);
    expect(await c.closed()).toBe(Close.Disconnected);
  });
});

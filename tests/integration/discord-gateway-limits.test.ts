import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startDiscordPeer, type DiscordPeer } from '../peers/discord.ts';

// The Discord peer's gateway limits on its own, driven by bare WebSockets (the limits and their
// citations: tests/peers/discord-gateway-limits.ts): identifies paced by GET /gateway/bot's
// max_concurrency (one per 5 s in each bucket, shard_id % max_concurrency, else op 9 Invalid
// Session), and 120 events a connection every 60 s (the next closes it with 4008).
describe('the Discord peer’s gateway limits', () => {
  let discord: DiscordPeer;
  const token = 'peer.limits-token';

  beforeAll(async () => {
    discord = await startDiscordPeer({ token });
  });
  afterAll(() => discord?.close());

  type Msg = { op: number; d: unknown; t?: string };
  /** A gateway socket: its messages, and its close code once closed. */
  async function connect() {
    const ws = new WebSocket(discord.url.replace(/^http/, 'ws') + '/gateway');
    const msgs: Msg[] = [];
    let code: number | null = null;
    ws.on('message', (raw) => msgs.push(JSON.parse(String(raw)) as Msg));
    const closed = new Promise<number>((resolve) =>
      ws.on('close', (c) => {
        code = c;
        resolve(c);
      }),
    );
    await new Promise((resolve) => ws.once('open', resolve));
    const until = async (check: () => boolean) => {
      const deadline = Date.now() + 10_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error('gateway limits test: timed out');
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    return {
      ws,
      msgs,
      closed,
      code: () => code,
      send: (op: number, d: unknown) => ws.send(JSON.stringify({ op, d })),
      identify(shard: [number, number]) {
        ws.send(JSON.stringify({ op: 2, d: { token, intents: 0, properties: {}, shard } }));
        return until(() => msgs.some((m) => m.op === 9 || m.t === 'READY')).then(() =>
          msgs.some((m) => m.t === 'READY') ? 'ready' : 'invalid session',
        );
      },
    };
  }

  it('advertises max_concurrency and answers an identify too soon in its bucket with op 9', async () => {
    discord.maxConcurrency = 2;
    const info = (await (
      await fetch(`${discord.apiUrl}/v10/gateway/bot`, { headers: { authorization: `Bot ${token}` } })
    ).json()) as { session_start_limit: { max_concurrency: number } };
    expect(info.session_start_limit.max_concurrency).toBe(2);
    const sockets = await Promise.all([0, 1, 2, 3].map(() => connect()));
    try {
      // Shards 0 and 1 are in buckets 0 and 1: both at once. Shard 2 shares bucket 0 with shard 0
      // and shard 3 bucket 1 with shard 1: within 5 s they are refused.
      expect(await sockets[0]!.identify([0, 4])).toBe('ready');
      expect(await sockets[1]!.identify([1, 4])).toBe('ready');
      expect(await sockets[2]!.identify([2, 4])).toBe('invalid session');
      expect(await sockets[3]!.identify([3, 4])).toBe('invalid session');
      expect(discord.identifyRefused).toEqual([2, 3]);
      expect(discord.identifies.map((i) => i.shard[0])).toEqual([0, 1]);
    } finally {
      for (const s of sockets) s.ws.close();
    }
  });

  it('closes a connection with 4008 at its 121st event within 60 s', async () => {
    discord.maxConcurrency = 16;
    const s = await connect();
    expect(await s.identify([5, 16])).toBe('ready');
    // The identify, 118 voice state updates (op 4: a bot joining and leaving) and a heartbeat
    // fill the window; the heartbeat is still answered.
    const leave = { guild_id: '1', channel_id: null, self_mute: false, self_deaf: true };
    for (let i = 0; i < 118; i++) s.send(4, leave);
    s.send(1, null);
    await new Promise((r) => setTimeout(r, 200));
    expect(s.msgs.filter((m) => m.op === 11)).toHaveLength(1);
    expect(s.code()).toBeNull();
    // One more: closed with 4008 Rate limited.
    s.send(4, leave);
    expect(await s.closed).toBe(4008);
    expect(discord.gatewayCloses).toContain(4008);
  });
});

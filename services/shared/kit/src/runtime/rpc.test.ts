import { busEvent, rpc, type Rpc } from '@chronicler/contracts';
import { Type } from '@sinclair/typebox';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'nats';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Collector, roundTrip, serviceErrorOf, uniquePrefix } from '../testing/bus-contract/index.ts';
import { MemoryBus } from '../bus/memory.ts';
import { NatsBus } from '../bus/nats.ts';
import type { Bus, DeadLetter } from '../bus/types.ts';
import { EncodedJson } from '../bus/codec.ts';
import { ServiceError } from '../errors.ts';
import {
  call,
  callEncoded,
  callEncodedPage,
  consume,
  listen,
  PAYLOAD_BLOB_MAX_AGE_MS,
  PAYLOAD_BUCKET,
  PAYLOAD_HEADROOM_BYTES,
  PAYLOAD_INLINE_BYTES,
  serve,
} from './rpc.ts';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

async function natsAvailable(): Promise<boolean> {
  try {
    const nc = await connect({ servers: NATS_URL, timeout: 2000, reconnect: false });
    try {
      await nc.jetstreamManager({ timeout: 2000 });
      return true;
    } finally {
      await nc.close();
    }
  } catch {
    return false;
  }
}

const pageRpc = rpc(
  'group',
  'page-test',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), order: Type.String() }),
  Type.Object({
    items: Type.Array(Type.Object({ name: Type.String() })),
    next: Type.Union([Type.String(), Type.Null()]),
  }),
);

const echoRpc = rpc(
  'group',
  'echo-test',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), text: Type.String() }),
  Type.Object({ text: Type.String(), length: Type.Integer() }),
);

/** 3 MiB of UTF-8 made of 4-byte characters, so that a byte/character mix-up shows. */
const bigText = (): string => '🐉'.repeat((3 * 1024 * 1024) / 4);

/** Records the names of the payload blobs a bus writes. */
function recordPuts(bus: Bus): string[] {
  const names: string[] = [];
  const put = bus.blobs.put.bind(bus.blobs);
  bus.blobs.put = (bucket, name, source, opts) => {
    if (bucket === PAYLOAD_BUCKET) names.push(name);
    return put(bucket, name, source, opts);
  };
  return names;
}

type MakeBus = (prefix: string) => Promise<Bus>;

/**
 * serve(), then a round trip on the serving bus: on NATS the server has then registered the
 * subscription, which a request from another connection could otherwise overtake.
 */
async function served<R extends Rpc>(bus: Bus, endpoint: R, handler: Parameters<typeof serve<R>>[2]) {
  const sub = serve(bus, endpoint, handler);
  await roundTrip(bus);
  return sub;
}

function describeRpc(label: string, makeBus: MakeBus, natsStream?: (prefix: string) => Promise<number>) {
  describe(`call/serve over ${label}`, () => {
    const open: Bus[] = [];
    afterEach(async () => {
      await Promise.all(open.splice(0).map((b) => b.close()));
    });
    const newBus = async (prefix = uniquePrefix()) => {
      const b = await makeBus(prefix);
      open.push(b);
      return b;
    };

    it('carries a 3 MiB request and a 3 MiB reply through the blob store and deletes both blobs after reading', async () => {
      const prefix = uniquePrefix();
      const server = await newBus(prefix);
      const client = await newBus(prefix);
      const serverPuts = recordPuts(server);
      const clientPuts = recordPuts(client);
      let seen = '';
      await served(server, echoRpc, (req) => {
        seen = req.text;
        return { text: `${req.text}!`, length: req.text.length };
      });
      const text = bigText();
      const reply = await call(client, echoRpc, { owner_id: 'u1', text }, { timeoutMs: 30_000 });
      expect(seen).toBe(text);
      expect(reply.length).toBe(text.length);
      expect(reply.text).toBe(`${text}!`);
      expect(clientPuts).toHaveLength(1);
      expect(serverPuts).toHaveLength(1);
      for (const name of [...clientPuts, ...serverPuts]) {
        expect(await client.blobs.info(PAYLOAD_BUCKET, name)).toBeNull();
      }
    });

    it('serialises a small request once, and again when it is sent after a closed bus refused it', async () => {
      const prefix = uniquePrefix();
      const server = await newBus(prefix);
      const client = await newBus(prefix);
      await served(server, echoRpc, (req) => ({ text: req.text, length: req.text.length }));
      let serialised = 0;
      const request = {
        owner_id: 'u1',
        text: 'once',
        toJSON() {
          serialised++;
          return { owner_id: this.owner_id, text: this.text };
        },
      };
      expect(await call(client, echoRpc, request)).toEqual({ text: 'once', length: 4 });
      expect(serialised).toBe(1);

      const closed = await makeBus(prefix);
      await closed.close();
      expect((await serviceErrorOf(call(closed, echoRpc, request))).code).toBe('unavailable');
      request.text = 'changed';
      // sent by the bus itself, not by call: nothing may be left of the refused call's text
      expect(await client.request(echoRpc.subject, request)).toEqual({ text: 'changed', length: 7 });
    });

    it('sends payloads up to the inline limit inside the message, without a blob', async () => {
      const prefix = uniquePrefix();
      const server = await newBus(prefix);
      const client = await newBus(prefix);
      const puts = [...[server, client].map(recordPuts)];
      await served(server, echoRpc, (req) => ({ text: req.text, length: req.text.length }));
      const text = 'a'.repeat(PAYLOAD_INLINE_BYTES - 100);
      expect((await call(client, echoRpc, { owner_id: 'u1', text })).text).toBe(text);
      expect(puts.flat()).toEqual([]);
    });

    it("sends a payload up to the bus's largest message less the headroom inside the message too", async () => {
      const prefix = uniquePrefix();
      const server = await newBus(prefix);
      const client = await newBus(prefix);
      const puts = [...[server, client].map(recordPuts)];
      await served(server, echoRpc, (req) => ({ text: req.text, length: req.text.length }));
      const limit = Math.max(PAYLOAD_INLINE_BYTES, client.maxPayloadBytes - PAYLOAD_HEADROOM_BYTES);
      const text = 'a'.repeat(limit - 100);
      expect((await call(client, echoRpc, { owner_id: 'u1', text })).text).toBe(text);
      expect(puts.flat()).toEqual([]);
      // One more than that goes through the blob store, both ways.
      const over = 'b'.repeat(limit + 1);
      expect((await call(client, echoRpc, { owner_id: 'u1', text: over })).text).toBe(over);
      expect(puts.flat()).toHaveLength(2);
    });

    it('callEncoded gives the reply as its JSON text, inline or from the blob store, and errors as call does', async () => {
      const prefix = uniquePrefix();
      const server = await newBus(prefix);
      const client = await newBus(prefix);
      const puts = [...[server, client].map(recordPuts)];
      await served(server, echoRpc, (req) => {
        if (req.text === 'refuse') throw new ServiceError('not_found', 'No such echo');
        return { text: req.text, length: req.text.length };
      });
      const quoted = 'a "quoted" 🐉';
      const small = await callEncoded(client, echoRpc, { owner_id: 'u1', text: quoted });
      expect(small).toBeInstanceOf(EncodedJson);
      expect(small.text).toBe(JSON.stringify({ text: quoted, length: quoted.length }));
      // From NATS the reply's bytes are kept to be sent on as they are; in-process, its text.
      expect(Buffer.isBuffer(small.body)).toBe(label === 'NATS');
      expect(Buffer.from(small.body).toString('utf8')).toBe(small.text);
      expect(puts.flat()).toEqual([]);
      // A reply too large for a message is read from its blob as text, and the blob deleted.
      const text = bigText();
      const big = await callEncoded(client, echoRpc, { owner_id: 'u1', text }, { timeoutMs: 30_000 });
      expect(big.text).toBe(JSON.stringify({ text, length: text.length }));
      expect(puts.flat()).toHaveLength(2);
      for (const name of puts.flat()) expect(await client.blobs.info(PAYLOAD_BUCKET, name)).toBeNull();
      const err = await serviceErrorOf(callEncoded(client, echoRpc, { owner_id: 'u1', text: 'refuse' }));
      expect([err.code, err.message]).toEqual(['not_found', 'No such echo']);
    });

    it('callEncodedPage gives a page as its cursor and the JSON text of its items, in any key order', async () => {
      const prefix = uniquePrefix();
      const server = await newBus(prefix);
      const client = await newBus(prefix);
      // Names that look like the end of a page must not end the items early.
      const items = [{ name: '],"next":null}' }, { name: 'a "quoted" 🐉\n' }, { name: ',"next":"x"}' }];
      await served(server, pageRpc, (req) => {
        if (req.order === 'next-first') return { next: 'b64_-Cursor', items };
        if (req.order === 'empty') return { items: [], next: null };
        if (req.order === 'odd-cursor') return { items, next: 'not base64url "quoted"' };
        return { items, next: req.order === 'last' ? null : 'b64_-Cursor' };
      });
      for (const [order, next, expected] of [
        ['items-first', 'b64_-Cursor', items],
        ['last', null, items],
        ['next-first', 'b64_-Cursor', items],
        ['empty', null, []],
        ['odd-cursor', 'not base64url "quoted"', items],
      ] as const) {
        const page = await callEncodedPage(client, pageRpc, { owner_id: 'u1', order });
        expect(page.items).toBeInstanceOf(EncodedJson);
        expect([order, JSON.parse(page.items.text), page.next]).toEqual([order, expected, next]);
      }
    });

    it('validates a large request after reading it: a wrong shape is bad_request and its blob is gone', async () => {
      const prefix = uniquePrefix();
      const server = await newBus(prefix);
      const client = await newBus(prefix);
      const puts = recordPuts(client);
      let calls = 0;
      await served(server, echoRpc, () => {
        calls++;
        return { text: '', length: 0 };
      });
      const bad = { owner_id: 'u1', text: 42, padding: bigText() } as unknown as {
        owner_id: string;
        text: string;
      };
      const err = await serviceErrorOf(call(client, echoRpc, bad, { timeoutMs: 30_000 }));
      expect(err.code).toBe('bad_request');
      expect(err.message).toContain('/text');
      expect(calls).toBe(0);
      expect(await client.blobs.info(PAYLOAD_BUCKET, puts[0]!)).toBeNull();
    });

    it('deletes the blob of a large request that no service answers', async () => {
      const client = await newBus();
      const puts = recordPuts(client);
      const err = await serviceErrorOf(call(client, echoRpc, { owner_id: 'u1', text: bigText() }));
      expect(err.code).toBe('unavailable');
      expect(puts).toHaveLength(1);
      expect(await client.blobs.info(PAYLOAD_BUCKET, puts[0]!)).toBeNull();
    });

    if (natsStream) {
      it('gives the payload bucket a TTL, so blobs of abandoned calls expire', async () => {
        const prefix = uniquePrefix();
        const server = await newBus(prefix);
        const client = await newBus(prefix);
        await served(server, echoRpc, (req) => ({ text: req.text, length: 0 }));
        await call(client, echoRpc, { owner_id: 'u1', text: bigText() }, { timeoutMs: 30_000 });
        expect(await natsStream(prefix)).toBe(PAYLOAD_BLOB_MAX_AGE_MS * 1_000_000);
      });
    }

    it('consume types a durable event: a valid payload reaches the handler, an invalid one is dead-lettered unhandled', async () => {
      const bus = await newBus();
      const event = busEvent('test', 'happened', Type.Object({ n: Type.Integer() }));
      await bus.ensureStream({ name: 'TEST_EVENTS', subjects: ['evt.test.>'] });
      const handled = new Collector<number>();
      const dead = new Collector<DeadLetter>();
      bus.subscribe('dlq.TEST_EVENTS.typed', (p) => dead.push(p as DeadLetter));
      await consume(
        bus,
        { stream: 'TEST_EVENTS', durable: 'typed', maxDeliver: 1, backoffMs: 10 },
        event,
        async (payload) => handled.push(payload.n),
      );
      await bus.publishDurable(event.subject, { n: 'one' });
      await bus.publishDurable(event.subject, { n: 2 });
      await handled.waitFor(1);
      const [letter] = await dead.waitFor(1);
      expect(handled.items).toEqual([2]);
      expect(letter!.payload).toEqual({ n: 'one' });
      expect(letter!.error).toContain('/n');
    });

    it('listen types an event: a valid payload reaches the handler, an invalid one does not, and the subscription lives on', async () => {
      const bus = await newBus();
      const event = busEvent('test', 'noticed', Type.Object({ n: Type.Integer() }));
      const handled = new Collector<number>();
      listen(bus, { ...event, subject: 'evt.test.*' }, (payload, meta) => {
        expect(meta.subject).toBe(event.subject);
        handled.push(payload.n);
      });
      await bus.publish(event.subject, { n: 'one' });
      await bus.publish(event.subject, { n: 2 });
      expect(await handled.waitFor(1)).toEqual([2]);
      await roundTrip(bus);
      expect(handled.items).toEqual([2]);
    });
  });
}

const tmpDirs: string[] = [];
afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chronicler-rpc-'));
tmpDirs.push(dataDir);

describeRpc('the in-process bus', async (prefix) => new MemoryBus({ prefix, dataDir, name: 'rpc-test' }));

if (await natsAvailable()) {
  const prefixes = new Set<string>();
  afterAll(async () => {
    const nc = await connect({ servers: NATS_URL, reconnect: false });
    try {
      const jsm = await nc.jetstreamManager();
      const names: string[] = [];
      for await (const s of jsm.streams.list()) names.push(s.config.name);
      const owned = (n: string) =>
        [...prefixes].some((p) => n.startsWith(`${p}_`) || n.startsWith(`OBJ_${p}_`));
      await Promise.all(names.filter(owned).map((n) => jsm.streams.delete(n)));
    } finally {
      await nc.close();
    }
  });
  describeRpc(
    'NATS',
    async (prefix) => {
      prefixes.add(prefix);
      return NatsBus.connect({ url: NATS_URL, prefix, name: 'rpc-test' });
    },
    async (prefix) => {
      const nc = await connect({ servers: NATS_URL, reconnect: false });
      try {
        const jsm = await nc.jetstreamManager();
        for await (const s of jsm.streams.list()) {
          if (s.config.name.startsWith(`OBJ_${prefix}_`) && s.config.name.includes('bus-payloads'))
            return s.config.max_age;
        }
        return -1;
      } finally {
        await nc.close();
      }
    },
  );
} else {
  describe.skip('call/serve over NATS (skipped: no NATS server with JetStream)', () => {
    it('needs NATS_URL', () => {});
  });
}

import { connect, headers, type NatsConnection } from 'nats';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Outbox } from './nats-outbox.ts';
import { ReplyMux, RequestFailed } from './nats-replies.ts';

const NATS_URL = process.env.NATS_URL;
const subject = (name: string) => `replymux.${process.pid}.${name}`;

// The NATS server speaks the protocol here (the wildcard inbox, the 503 of no responders).
describe.runIf(process.env.CHRONICLER_TEST_MODE === 'cluster' && NATS_URL)(
  'ReplyMux on a NATS server',
  () => {
    let nc: NatsConnection;
    let mux: ReplyMux;
    beforeAll(async () => {
      nc = await connect({ servers: NATS_URL! });
      mux = new ReplyMux(nc);
    });
    afterAll(async () => {
      await nc?.close();
    });

    it('matches replies to their requests, many at once and out of order', async () => {
      nc.subscribe(subject('echo'), {
        callback: (_err, m) => {
          const n = Number(new TextDecoder().decode(m.data));
          setTimeout(() => m.respond(m.data), (n * 7) % 20);
        },
      });
      await nc.flush();
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          mux.request(subject('echo'), new TextEncoder().encode(String(i)), 2_000),
        ),
      );
      expect(replies.map((m) => new TextDecoder().decode(m.data))).toEqual(
        Array.from({ length: 50 }, (_, i) => String(i)),
      );
      expect(mux.pending).toBe(0);
    });

    it('with an outbox: the requests of one turn leave together, each answered, and one that cannot be sent fails at once', async () => {
      const outbox = new Outbox();
      const batched = new ReplyMux(nc, outbox);
      nc.subscribe(subject('batched'), { callback: (_err, m) => m.respond(m.data) });
      await nc.flush();
      const replies = Array.from({ length: 10 }, (_, i) =>
        batched.request(subject('batched'), new TextEncoder().encode(String(i)), 2_000),
      );
      expect(outbox.size).toBe(10);
      expect((await Promise.all(replies)).map((m) => new TextDecoder().decode(m.data))).toEqual(
        Array.from({ length: 10 }, (_, i) => String(i)),
      );
      // Over the server's max_payload: nats.js refuses it when the outbox hands it over (an
      // error of its own, not the RequestFailed of a timeout).
      const tooLarge = new Uint8Array(nc.info!.max_payload + 1);
      const err = await batched.request(subject('batched'), tooLarge, 5_000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(RequestFailed);
      expect(batched.pending).toBe(0);
    });

    it('says no-responders, not a timeout, when nobody subscribes', async () => {
      const err = await mux.request(subject('nobody'), new Uint8Array(), 5_000).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RequestFailed);
      expect((err as RequestFailed).reason).toBe('no-responders');
      expect(mux.pending).toBe(0);
    });

    it('times out, and a reply that comes later is dropped', async () => {
      let late: (() => void) | undefined;
      nc.subscribe(subject('slow'), { callback: (_err, m) => (late = () => m.respond(m.data)) });
      await nc.flush();
      const err = await mux.request(subject('slow'), new Uint8Array([1]), 150).catch((e: unknown) => e);
      expect((err as RequestFailed).reason).toBe('timeout');
      expect(mux.pending).toBe(0);
      late!();
      await sleep(100);
      expect(mux.pending).toBe(0);
    });

    it('carries headers to the responder', async () => {
      nc.subscribe(subject('headers'), {
        callback: (_err, m) => m.respond(new TextEncoder().encode(m.headers?.get('x-trace') ?? '')),
      });
      await nc.flush();
      const h = headers();
      h.set('x-trace', 'abc');
      const reply = await mux.request(subject('headers'), new Uint8Array(), 2_000, h);
      expect(new TextDecoder().decode(reply.data)).toBe('abc');
    });

    it('fails what is waiting when the connection closes', async () => {
      const other = await connect({ servers: NATS_URL! });
      const otherMux = new ReplyMux(other);
      nc.subscribe(subject('never'), { callback: () => {} });
      await nc.flush();
      const waiting = otherMux.request(subject('never'), new Uint8Array(), 10_000).catch((e: unknown) => e);
      await sleep(50);
      await other.close();
      expect(((await waiting) as RequestFailed).reason).toBe('closed');
    });
  },
);

import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../errors.ts';
import type { MessageMeta } from '../../bus/types.ts';
import { Collector, roundTrip, serviceErrorOf, uniquePrefix, type Harness } from './support.ts';

/** Request/reply and publish/subscribe, as every bus answers them. */
export function messagingContract({ newBus, gate }: Harness): void {
  describe('request/reply', () => {
    it('answers with a JSON copy: the handler cannot touch the caller objects, and sees the unprefixed subject and headers', async () => {
      const bus = await newBus();
      const seen: MessageMeta[] = [];
      bus.handle('svc.echo.*', (payload, meta) => {
        seen.push(meta);
        (payload as { touched?: boolean }).touched = true;
        return { got: payload, subject: meta.subject };
      });
      const req = { n: 1, nested: { list: [1, 2] } };
      const res = await bus.request('svc.echo.run', req, { headers: { 'x-request-id': 'req-1' } });
      expect(res).toEqual({
        got: { n: 1, nested: { list: [1, 2] }, touched: true },
        subject: 'svc.echo.run',
      });
      expect(req).toEqual({ n: 1, nested: { list: [1, 2] } });
      expect(seen).toHaveLength(1);
      expect(seen[0]!.subject).toBe('svc.echo.run');
      expect(seen[0]!.headers['x-request-id']).toBe('req-1');

      bus.handle('svc.void.call', (payload) => {
        expect(payload).toBeUndefined();
        return undefined;
      });
      await expect(bus.request('svc.void.call', undefined)).resolves.toBeUndefined();
    });

    it('passes a ServiceError code, message and details to the caller', async () => {
      const bus = await newBus();
      bus.handle('svc.limits.check', () => {
        throw new ServiceError('rate_limited', 'Slow down', { retryAfterMs: 1500 });
      });
      const err = await serviceErrorOf(bus.request('svc.limits.check', {}));
      expect(err.code).toBe('rate_limited');
      expect(err.message).toBe('Slow down');
      expect(err.details).toEqual({ retryAfterMs: 1500 });
    });

    it('turns any other error into internal without leaking its message or stack', async () => {
      const bus = await newBus();
      bus.handle('svc.db.query', async () => {
        throw new Error('connect failed: password=hunter2 at /srv/app/db.ts:12');
      });
      bus.handle('svc.db.bigint', () => BigInt(1));
      for (const subject of ['svc.db.query', 'svc.db.bigint']) {
        const err = await serviceErrorOf(bus.request(subject, {}));
        expect(err.code).toBe('internal');
        const wire = JSON.stringify(err.toJSON());
        expect(wire).not.toContain('hunter2');
        expect(wire).not.toContain('db.ts');
        expect(err.details).toBeUndefined();
      }
    });

    it('rejects with unavailable at once when nobody handles the subject', async () => {
      const bus = await newBus();
      const started = Date.now();
      const err = await serviceErrorOf(bus.request('svc.nobody.home', {}, { timeoutMs: 10_000 }));
      expect(err.code).toBe('unavailable');
      expect(err.message).toBe('No service answers svc.nobody.home');
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('rejects with timeout when the handler does not answer within timeoutMs', async () => {
      const bus = await newBus();
      const never = gate();
      bus.handle('svc.slow.op', () => never.promise);
      const err = await serviceErrorOf(bus.request('svc.slow.op', {}, { timeoutMs: 200 }));
      expect(err.code).toBe('timeout');
    });

    it('gives each request to exactly one member of a queue group, and both members answer some', async () => {
      const prefix = uniquePrefix();
      const [a, b] = [await newBus(prefix), await newBus(prefix)];
      const calls = { a: 0, b: 0 };
      a.handle('svc.work.do', () => (calls.a++, 'a'), { queue: 'workers' });
      b.handle('svc.work.do', () => (calls.b++, 'b'), { queue: 'workers' });
      const answers: string[] = [];
      for (let i = 0; i < 30; i++) answers.push(await a.request<string>('svc.work.do', { i }));
      await roundTrip(a);
      await roundTrip(b);
      expect(calls.a + calls.b).toBe(30);
      expect(calls.a).toBeGreaterThan(0);
      expect(calls.b).toBeGreaterThan(0);
      expect(answers.filter((x) => x === 'a')).toHaveLength(calls.a);
    });

    it('refuses payloads and replies above the 1 MiB message limit with payload_too_large', async () => {
      const bus = await newBus();
      const big = 'x'.repeat(1024 * 1024 + 1);
      bus.handle('svc.size.echo', (p) => p);
      bus.handle('svc.size.big', () => big);
      expect((await serviceErrorOf(bus.request('svc.size.echo', big))).code).toBe('payload_too_large');
      expect((await serviceErrorOf(bus.request('svc.size.big', {}))).code).toBe('payload_too_large');
      expect((await serviceErrorOf(bus.publish('evt.size', big))).code).toBe('payload_too_large');
      expect(await bus.request('svc.size.echo', 'x'.repeat(512 * 1024))).toHaveLength(512 * 1024);
    });

    it('stops answering after unsubscribe', async () => {
      const bus = await newBus();
      const sub = bus.handle('svc.temp.op', () => 1);
      expect(await bus.request('svc.temp.op', {})).toBe(1);
      await sub.unsubscribe();
      expect((await serviceErrorOf(bus.request('svc.temp.op', {}))).code).toBe('unavailable');
    });
  });

  describe('publish/subscribe', () => {
    it('matches * (one token) and > (one or more tokens), and nothing else', async () => {
      const bus = await newBus();
      const got: Record<string, string[]> = { star: [], tail: [], group: [] };
      bus.subscribe('evt.*.created', (_p, m) => void got.star!.push(m.subject));
      bus.subscribe('evt.>', (_p, m) => void got.tail!.push(m.subject));
      bus.subscribe('evt.group.*', (_p, m) => void got.group!.push(m.subject));
      for (const s of [
        'evt.group.created',
        'evt.transcript.created',
        'evt.group.deleted',
        'evt.group.created.late',
        'evt',
        'other.group.created',
      ]) {
        await bus.publish(s, { s });
      }
      await roundTrip(bus);
      expect(got.star).toEqual(['evt.group.created', 'evt.transcript.created']);
      expect(got.tail).toEqual([
        'evt.group.created',
        'evt.transcript.created',
        'evt.group.deleted',
        'evt.group.created.late',
      ]);
      expect(got.group).toEqual(['evt.group.created', 'evt.group.deleted']);
    });

    it('gives every plain subscriber each message and one member of a queue group each message', async () => {
      const prefix = uniquePrefix();
      const [a, b] = [await newBus(prefix), await newBus(prefix)];
      const plain1 = new Collector<number>();
      const plain2 = new Collector<number>();
      const q1: number[] = [];
      const q2: number[] = [];
      a.subscribe('evt.tick', (p) => plain1.push((p as { i: number }).i));
      b.subscribe('evt.tick', (p) => plain2.push((p as { i: number }).i));
      a.subscribe('evt.tick', (p) => void q1.push((p as { i: number }).i), { queue: 'q' });
      b.subscribe('evt.tick', (p) => void q2.push((p as { i: number }).i), { queue: 'q' });
      await roundTrip(b); // b's subscriptions are registered before a publishes
      const N = 40;
      for (let i = 0; i < N; i++) await a.publish('evt.tick', { i });
      await plain1.waitFor(N);
      await plain2.waitFor(N);
      await roundTrip(a);
      await roundTrip(b);
      const all = Array.from({ length: N }, (_, i) => i);
      expect(plain1.items).toEqual(all);
      expect(plain2.items).toEqual(all);
      expect([...q1, ...q2].sort((x, y) => x - y)).toEqual(all);
      expect(q1.length).toBeGreaterThan(0);
      expect(q2.length).toBeGreaterThan(0);
    });

    it('keeps a subscription alive when its handler throws', async () => {
      const bus = await newBus();
      const seen = new Collector<number>();
      bus.subscribe('evt.flaky', (p) => {
        seen.push((p as { i: number }).i);
        if ((p as { i: number }).i === 1) throw new Error('handler bug');
      });
      await bus.publish('evt.flaky', { i: 1 });
      await bus.publish('evt.flaky', { i: 2 });
      expect(await seen.waitFor(2)).toEqual([1, 2]);
    });

    it('isolates prefixes: subjects, handlers and streams of one prefix are invisible to another', async () => {
      const a = await newBus();
      const b = await newBus();
      const bSaw: string[] = [];
      b.subscribe('>', (_p, m) => void bSaw.push(m.subject));
      b.handle('svc.iso.ping', () => 'pong from b');
      await roundTrip(b);
      expect((await serviceErrorOf(a.request('svc.iso.ping', {}))).code).toBe('unavailable');
      const aSaw = new Collector<string>();
      a.subscribe('evt.iso.x', (_p, m) => aSaw.push(m.subject));
      await a.publish('evt.iso.x', {});
      await aSaw.waitFor(1);
      await roundTrip(a);
      await roundTrip(b);
      expect(bSaw.filter((s) => !s.startsWith('test.flush.'))).toEqual([]);

      // the same stream name and subjects under two prefixes are two separate streams
      await a.ensureStream({ name: 'ISO', subjects: ['iso.>'] });
      await b.ensureStream({ name: 'ISO', subjects: ['iso.>'] });
      expect(await a.publishDurable('iso.one', 1)).toEqual({ stream: 'ISO', seq: 1, duplicate: false });
      expect(await a.publishDurable('iso.one', 2)).toEqual({ stream: 'ISO', seq: 2, duplicate: false });
      expect(await b.publishDurable('iso.one', 3)).toEqual({ stream: 'ISO', seq: 1, duplicate: false });
    });
  });
}

import {
  ROOT_CONTEXT,
  TraceFlags,
  context,
  isSpanContextValid,
  propagation,
  trace,
  type Context,
  type ContextManager,
  type TextMapPropagator,
} from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../errors.ts';
import {
  busDeliveries,
  busHandled,
  busHandlerSeconds,
  busMessagesPublished,
  busRedeliveries,
  busRequestSeconds,
  busRequests,
} from '../ops/metrics.ts';
import type { Bus, DeadLetter, DurableContext, MessageMeta } from './types.ts';

// One behavioural suite for every Bus implementation (CONVENTIONS: shared behaviour has one
// test suite run against each implementation). Each test works under its own random
// prefix, so tests never see each other, also on a shared NATS server.

/** `tracing`: spans and trace headers per message (false unless a test asks, as without a tracer). */
export type MakeBus = (opts: { prefix: string; dataDir?: string; tracing?: boolean }) => Promise<Bus>;

export const uniquePrefix = (): string => `t${randomBytes(5).toString('hex')}`;

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(err: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Collects what handlers see and lets a test await "n items arrived" instead of sleeping. */
export class Collector<T> {
  readonly items: T[] = [];
  private waiters: { done: (items: T[]) => boolean; resolve: () => void }[] = [];

  push = (item: T): void => {
    this.items.push(item);
    this.waiters = this.waiters.filter((w) => {
      if (!w.done(this.items)) return true;
      w.resolve();
      return false;
    });
  };

  waitFor(n: number, timeoutMs = 10_000): Promise<T[]> {
    return this.waitUntil((items) => items.length >= n, timeoutMs, `${n} items`);
  }

  waitUntil(done: (items: T[]) => boolean, timeoutMs = 10_000, what = 'the expected items'): Promise<T[]> {
    if (done(this.items)) return Promise.resolve(this.items);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`waited ${timeoutMs} ms for ${what}, got ${JSON.stringify(this.items)}`));
      }, timeoutMs);
      const waiter = {
        done,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.items);
        },
      };
      this.waiters.push(waiter);
    });
  }
}

/** Sum of a metric's samples whose labels include `labels` (metrics are process-wide: compare deltas). */
async function metricValue(
  metric: {
    get(): Promise<{ values: { value: number; labels: Record<string, unknown>; metricName?: string }[] }>;
  },
  labels: Record<string, string>,
  metricName?: string,
): Promise<number> {
  const { values } = await metric.get();
  return values
    .filter((v) => metricName === undefined || v.metricName === metricName)
    .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
    .reduce((sum, v) => sum + v.value, 0);
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves with the ServiceError a promise rejects with (fails the test if it resolves). */
export async function serviceErrorOf(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    return err as ServiceError;
  }
  throw new Error('expected a ServiceError, but the call succeeded');
}

/**
 * A request/reply round trip through the bus. Both buses deliver in order per connection,
 * so once it returns, every message published on this bus before it has been handed to
 * its subscribers: a deterministic "nothing else is coming" for negative assertions.
 */
export async function roundTrip(bus: Bus): Promise<void> {
  const subject = `test.flush.${randomBytes(4).toString('hex')}`;
  const sub = bus.handle(subject, () => 'ok');
  try {
    expect(await bus.request(subject, null)).toBe('ok');
  } finally {
    await sub.unsubscribe();
  }
}

/** Deterministic bytes, fed in chunks, with their expected size and digest. */
function blobSource(totalBytes: number, chunkBytes: number) {
  const hash = createHash('sha256');
  let produced = 0;
  let chunksPulled = 0;
  async function* gen(): AsyncGenerator<Uint8Array> {
    let seed = 1;
    while (produced < totalBytes) {
      const n = Math.min(chunkBytes, totalBytes - produced);
      const chunk = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        chunk[i] = seed >> 16;
      }
      hash.update(chunk);
      produced += n;
      chunksPulled++;
      yield chunk;
    }
  }
  return {
    iterable: gen(),
    digest: (() => {
      let d: string | undefined;
      return () => (d ??= natsDigest(hash.digest()));
    })(),
    chunksPulled: () => chunksPulled,
  };
}

function natsDigest(sha: Buffer): string {
  return `SHA-256=${sha.toString('base64').replace(/\+/g, '-').replace(/\//g, '_')}`;
}

async function readAll(r: Readable): Promise<{ size: number; digest: string; chunks: number }> {
  const hash = createHash('sha256');
  let size = 0;
  let chunks = 0;
  for await (const c of r) {
    const b = c as Buffer;
    hash.update(b);
    size += b.length;
    chunks++;
  }
  return { size, digest: natsDigest(hash.digest()), chunks };
}

// Trace context needs a context manager and a propagator; services get them from the
// OpenTelemetry SDK, tests register these minimal ones (W3C traceparent only).
class AsyncLocalContextManager implements ContextManager {
  private readonly als = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.als.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.als.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (thisArg: unknown, args: unknown[]) =>
      this.with(ctx, () => (target as (...a: unknown[]) => unknown).apply(thisArg, args));
    return function (this: unknown, ...args: unknown[]) {
      return run(this, args);
    } as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.als.disable();
    return this;
  }
}

const traceparentPropagator: TextMapPropagator = {
  inject(ctx, carrier, setter) {
    const sc = trace.getSpanContext(ctx);
    if (!sc || !isSpanContextValid(sc)) return;
    setter.set(carrier, 'traceparent', `00-${sc.traceId}-${sc.spanId}-0${(sc.traceFlags & 1).toString(16)}`);
  },
  extract(ctx, carrier, getter) {
    const raw = getter.get(carrier, 'traceparent');
    const value = Array.isArray(raw) ? raw[0] : raw;
    const m = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value ?? '');
    if (!m) return ctx;
    return trace.setSpanContext(ctx, {
      traceId: m[1]!,
      spanId: m[2]!,
      traceFlags: parseInt(m[3]!, 16),
      isRemote: true,
    });
  },
  fields: () => ['traceparent'],
};

let telemetryRegistered = false;
function registerTestTelemetry(): void {
  if (telemetryRegistered) return;
  telemetryRegistered = true;
  context.setGlobalContextManager(new AsyncLocalContextManager());
  propagation.setGlobalPropagator(traceparentPropagator);
}

/** Registers the contract suite for one implementation. */
export function describeBusContract(label: string, makeBus: MakeBus): void {
  describe(`Bus contract: ${label}`, () => {
    const open: Bus[] = [];
    const cleanups: (() => unknown)[] = [];

    async function newBus(prefix = uniquePrefix(), opts: { tracing?: boolean } = {}): Promise<Bus> {
      const bus = await makeBus({ prefix, tracing: opts.tracing ?? false });
      open.push(bus);
      return bus;
    }

    /** A gate a handler can wait on; opened in afterEach at the latest, so close() never hangs. */
    function gate(): Deferred<void> {
      const d = deferred();
      cleanups.push(() => d.resolve());
      return d;
    }

    beforeAll(registerTestTelemetry);

    afterEach(async () => {
      for (const c of cleanups.splice(0)) await c();
      await Promise.all(open.splice(0).map((b) => b.close()));
    });

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

    describe('durable streams', () => {
      type Seen = { payload: unknown; seq: number; deliveryCount: number; subject: string; msgId?: string };
      const record = (payload: unknown, ctx: DurableContext): Seen => ({
        payload,
        seq: ctx.seq,
        deliveryCount: ctx.deliveryCount,
        subject: ctx.subject,
        ...(ctx.msgId ? { msgId: ctx.msgId } : {}),
      });

      it('delivers stored messages in order and does not redeliver acked ones', async () => {
        const bus = await newBus();
        await bus.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
        for (let i = 1; i <= 3; i++) {
          expect(await bus.publishDurable(`jobs.kind${i}`, { i }, { msgId: `m-${i}` })).toEqual({
            stream: 'JOBS',
            seq: i,
            duplicate: false,
          });
        }
        const seen = new Collector<Seen>();
        await bus.consume({ stream: 'JOBS', durable: 'worker', ackWaitMs: 400 }, async (p, ctx) =>
          seen.push(record(p, ctx)),
        );
        expect(await seen.waitFor(3)).toEqual(
          [1, 2, 3].map((i) => ({
            payload: { i },
            seq: i,
            deliveryCount: 1,
            subject: `jobs.kind${i}`,
            msgId: `m-${i}`,
          })),
        );
        // nothing to await for "not redelivered": wait well past the ack deadline
        await sleep(1000);
        expect(seen.items).toHaveLength(3);
      });

      it('redelivers after a failing handler, with deliveryCount 2', async () => {
        const bus = await newBus();
        await bus.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
        await bus.publishDurable('jobs.a', { x: 1 });
        const seen = new Collector<Seen>();
        await bus.consume(
          { stream: 'JOBS', durable: 'w', backoffMs: 50, ackWaitMs: 5000 },
          async (p, ctx) => {
            seen.push(record(p, ctx));
            if (ctx.deliveryCount === 1) throw new Error('transient');
          },
        );
        const items = await seen.waitFor(2);
        expect(items.map((s) => [s.seq, s.deliveryCount])).toEqual([
          [1, 1],
          [1, 2],
        ]);
      });

      it('redelivers a message whose handler outlives the ack wait', async () => {
        const bus = await newBus();
        await bus.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
        await bus.publishDurable('jobs.slow', { x: 1 });
        const seen = new Collector<Seen>();
        const stuck = gate();
        await bus.consume(
          { stream: 'JOBS', durable: 'w', ackWaitMs: 400, concurrency: 2 },
          async (p, ctx) => {
            seen.push(record(p, ctx));
            if (ctx.deliveryCount === 1) await stuck.promise;
          },
        );
        const items = await seen.waitFor(2);
        expect(items.map((s) => [s.seq, s.deliveryCount])).toEqual([
          [1, 1],
          [1, 2],
        ]);
        stuck.resolve();
      });

      it('does not redeliver while the handler calls ctx.working()', async () => {
        const bus = await newBus();
        await bus.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
        await bus.publishDurable('jobs.long', {});
        const seen = new Collector<Seen>();
        const finished = deferred();
        await bus.consume(
          { stream: 'JOBS', durable: 'w', ackWaitMs: 400, concurrency: 2 },
          async (p, ctx) => {
            seen.push(record(p, ctx));
            if (ctx.deliveryCount > 1) return;
            // three ack deadlines long, a heartbeat every 150 ms
            for (let i = 0; i < 8; i++) {
              await sleep(150);
              ctx.working();
            }
            finished.resolve();
          },
        );
        await finished.promise;
        expect(seen.items.map((s) => s.deliveryCount)).toEqual([1]);
      });

      it('drops a second publish with the same msgId and reports it as duplicate', async () => {
        const bus = await newBus();
        await bus.ensureStream({ name: 'JOBS', subjects: ['jobs.>'], duplicateWindowMs: 60_000 });
        const first = await bus.publishDurable('jobs.x', { v: 1 }, { msgId: 'same' });
        const again = await bus.publishDurable('jobs.x', { v: 2 }, { msgId: 'same' });
        const other = await bus.publishDurable('jobs.x', { v: 3 }, { msgId: 'other' });
        expect(first).toEqual({ stream: 'JOBS', seq: 1, duplicate: false });
        expect(again).toEqual({ stream: 'JOBS', seq: 1, duplicate: true });
        expect(other).toEqual({ stream: 'JOBS', seq: 2, duplicate: false });
        const seen = new Collector<unknown>();
        await bus.consume({ stream: 'JOBS', durable: 'w' }, async (p) => seen.push(p));
        await bus.publishDurable('jobs.x', { v: 'end' });
        expect(await seen.waitFor(3)).toEqual([{ v: 1 }, { v: 3 }, { v: 'end' }]);
      });

      it('dead-letters after maxDeliver failed deliveries (core publish when no stream captures it) and acks', async () => {
        const bus = await newBus();
        await bus.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
        const letters = new Collector<DeadLetter>();
        bus.subscribe('dlq.JOBS.w', (p) => letters.push(p as DeadLetter));
        await roundTrip(bus);
        await bus.publishDurable('jobs.poison', { bad: true }, { msgId: 'p-1' });
        const attempts = new Collector<Seen>();
        await bus.consume(
          { stream: 'JOBS', durable: 'w', maxDeliver: 3, backoffMs: 20, ackWaitMs: 5000 },
          async (p, ctx) => {
            attempts.push(record(p, ctx));
            if ((p as { bad?: boolean }).bad) throw new Error('boom');
          },
        );
        const [letter] = await letters.waitFor(1);
        expect(letter).toEqual({
          stream: 'JOBS',
          durable: 'w',
          subject: 'jobs.poison',
          seq: 1,
          msgId: 'p-1',
          deliveries: 3,
          error: 'boom',
          payload: { bad: true },
        } satisfies DeadLetter);
        // acked: a later message is the next thing the handler sees, the poison one never again
        await bus.publishDurable('jobs.fine', { bad: false });
        await attempts.waitFor(4);
        await roundTrip(bus);
        expect(attempts.items.map((s) => [s.seq, s.deliveryCount])).toEqual([
          [1, 1],
          [1, 2],
          [1, 3],
          [2, 1],
        ]);
      });

      it('dead-letters durably when a stream captures the subject, also when the last delivery timed out', async () => {
        const bus = await newBus();
        await bus.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
        await bus.ensureStream({ name: 'DEAD', subjects: ['dead.>'] });
        await bus.publishDurable('jobs.hang', { n: 7 });
        const stuck = gate();
        let calls = 0;
        await bus.consume(
          {
            stream: 'JOBS',
            durable: 'w',
            maxDeliver: 1,
            ackWaitMs: 400,
            concurrency: 2,
            deadLetterSubject: 'dead.jobs',
          },
          async () => {
            calls++;
            await stuck.promise;
          },
        );
        const letters = new Collector<{ letter: DeadLetter; subject: string }>();
        await bus.consume({ stream: 'DEAD', durable: 'inspect' }, async (p, ctx) =>
          letters.push({ letter: p as DeadLetter, subject: ctx.subject }),
        );
        const [{ letter, subject }] = (await letters.waitFor(1)) as [{ letter: DeadLetter; subject: string }];
        expect(subject).toBe('dead.jobs');
        expect(letter).toMatchObject({
          stream: 'JOBS',
          durable: 'w',
          subject: 'jobs.hang',
          seq: 1,
          deliveries: 1,
          payload: { n: 7 },
        });
        expect(letter.error).toMatch(/not acknowledged/);
        expect(calls).toBe(1);
      });

      it('never runs more than `concurrency` handlers at once, and does use them', async () => {
        const bus = await newBus();
        await bus.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
        for (let i = 0; i < 10; i++) await bus.publishDurable('jobs.c', { i });
        let inFlight = 0;
        let max = 0;
        const started = new Collector<number>();
        const releases: Deferred<void>[] = [];
        await bus.consume({ stream: 'JOBS', durable: 'w', concurrency: 3 }, async (p) => {
          inFlight++;
          max = Math.max(max, inFlight);
          const release = gate();
          releases.push(release);
          started.push((p as { i: number }).i);
          await release.promise;
          inFlight--;
        });
        await started.waitFor(3);
        // Free one slot at a time: exactly one more handler may start each time. A bus that
        // refills more than its free slots starts several at once, in the same batch.
        for (let done = 1; done <= 10; done++) {
          releases[done - 1]!.resolve();
          if (done <= 7) await started.waitFor(done + 3);
          await sleep(30);
          expect(inFlight).toBeLessThanOrEqual(3);
        }
        expect(max).toBe(3);
        expect([...started.items].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      });

      it('stop() waits for handlers in flight; a new consumer of the durable resumes after the acked messages', async () => {
        const prefix = uniquePrefix();
        const bus = await newBus(prefix);
        await bus.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
        await bus.publishDurable('jobs.r', { n: 1 });
        await bus.publishDurable('jobs.r', { n: 2 });
        const first = new Collector<Seen>();
        const hold = gate();
        let finished = false;
        const consumer = await bus.consume({ stream: 'JOBS', durable: 'resume' }, async (p, ctx) => {
          first.push(record(p, ctx));
          if (ctx.seq === 2) {
            await hold.promise;
            finished = true;
          }
        });
        await first.waitFor(2);
        let stopped = false;
        const stopping = consumer.stop().then(() => (stopped = true));
        await roundTrip(bus);
        expect(stopped).toBe(false);
        hold.resolve();
        await stopping;
        expect(finished).toBe(true);

        await bus.publishDurable('jobs.r', { n: 3 });
        await bus.publishDurable('jobs.r', { n: 4 });
        // another client (think: the service restarted) picks the durable up where it was left
        const second = new Collector<Seen>();
        const restarted = await newBus(prefix);
        await restarted.consume({ stream: 'JOBS', durable: 'resume' }, async (p, ctx) =>
          second.push(record(p, ctx)),
        );
        const items = await second.waitFor(2);
        expect(items.map((s) => [s.seq, s.deliveryCount, s.payload])).toEqual([
          [3, 1, { n: 3 }],
          [4, 1, { n: 4 }],
        ]);
      });

      it('shares one durable between two consumers without delivering a message twice', async () => {
        const prefix = uniquePrefix();
        const [a, b] = [await newBus(prefix), await newBus(prefix)];
        await a.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
        const all = new Collector<{ who: string; seq: number }>();
        for (const [who, bus] of [
          ['a', a],
          ['b', b],
        ] as const) {
          await bus.consume({ stream: 'JOBS', durable: 'shared' }, async (_p, ctx) => {
            all.push({ who, seq: ctx.seq });
            await sleep(5);
          });
        }
        const N = 30;
        for (let i = 0; i < N; i++) await a.publishDurable('jobs.s', { i });
        await all.waitFor(N);
        await a.publishDurable('jobs.s', { i: 'end' });
        await all.waitFor(N + 1);
        const seqs = all.items.map((x) => x.seq).sort((x, y) => x - y);
        expect(seqs).toEqual(Array.from({ length: N + 1 }, (_, i) => i + 1));
        expect(all.items.some((x) => x.who === 'a')).toBe(true);
        expect(all.items.some((x) => x.who === 'b')).toBe(true);
      });

      it('delivers only what matches filterSubject', async () => {
        const bus = await newBus();
        await bus.ensureStream({ name: 'EVENTS', subjects: ['e.>'] });
        await bus.publishDurable('e.group.deleted', { id: 1 });
        await bus.publishDurable('e.user.created', { id: 2 });
        await bus.publishDurable('e.group.renamed', { id: 3 });
        const seen = new Collector<string>();
        await bus.consume(
          { stream: 'EVENTS', durable: 'groups', filterSubject: 'e.group.*' },
          async (_p, ctx) => seen.push(ctx.subject),
        );
        await bus.publishDurable('e.group.end', {});
        expect(await seen.waitFor(3)).toEqual(['e.group.deleted', 'e.group.renamed', 'e.group.end']);
      });

      it('ensureStream is idempotent, updates subjects, and refuses subjects another stream owns', async () => {
        const bus = await newBus();
        await bus.ensureStream({ name: 'A', subjects: ['a.one'] });
        await bus.ensureStream({ name: 'A', subjects: ['a.one'] });
        expect((await serviceErrorOf(bus.publishDurable('a.two', {}))).code).toBe('unavailable');
        await bus.ensureStream({ name: 'A', subjects: ['a.one', 'a.two'] });
        expect(await bus.publishDurable('a.two', {})).toEqual({ stream: 'A', seq: 1, duplicate: false });
        const err = await serviceErrorOf(bus.ensureStream({ name: 'B', subjects: ['a.*'] }));
        expect(err.code).toBe('conflict');
      });

      it('refuses a durable publish no stream captures, and a consumer of a missing stream', async () => {
        const bus = await newBus();
        expect((await serviceErrorOf(bus.publishDurable('nowhere.x', {}))).code).toBe('unavailable');
        expect(
          (await serviceErrorOf(bus.consume({ stream: 'MISSING', durable: 'w' }, async () => {}))).code,
        ).toBe('not_found');
      });
    });

    describe('blobs', () => {
      it('streams a multi-megabyte object in and out in chunks, with its size and digest, then deletes it', async () => {
        const bus = await newBus();
        const size = 5 * 1024 * 1024 + 123;
        const src = blobSource(size, 64 * 1024);
        const info = await bus.blobs.put('audio', 'session-1/track.ogg', src.iterable, {
          contentType: 'audio/ogg',
        });
        expect(src.chunksPulled()).toBe(Math.ceil(size / (64 * 1024)));
        expect(info).toMatchObject({
          bucket: 'audio',
          name: 'session-1/track.ogg',
          size,
          digest: src.digest(),
          contentType: 'audio/ogg',
        });
        expect(Number.isNaN(Date.parse(info.createdAt))).toBe(false);
        expect(await bus.blobs.info('audio', 'session-1/track.ogg')).toEqual(info);

        const stream = await bus.blobs.get('audio', 'session-1/track.ogg');
        expect(stream).not.toBeNull();
        const read = await readAll(stream!);
        expect(read.size).toBe(size);
        expect(read.digest).toBe(src.digest());
        expect(read.chunks).toBeGreaterThan(1);

        expect(await bus.blobs.delete('audio', 'session-1/track.ogg')).toBe(true);
        expect(await bus.blobs.get('audio', 'session-1/track.ogg')).toBeNull();
        expect(await bus.blobs.info('audio', 'session-1/track.ogg')).toBeNull();
        expect(await bus.blobs.delete('audio', 'session-1/track.ogg')).toBe(false);
      });

      it('takes a Node Readable, replaces an object on a second put, and answers null for missing objects', async () => {
        const bus = await newBus();
        await bus.blobs.put('docs', 'a.txt', Readable.from([Buffer.from('first version')]));
        const info = await bus.blobs.put(
          'docs',
          'a.txt',
          Readable.from([Buffer.from('second '), Buffer.from('version!')]),
          {},
        );
        expect(info.size).toBe('second version!'.length);
        expect(info.contentType).toBeUndefined();
        const text = Buffer.concat(await (await bus.blobs.get('docs', 'a.txt'))!.toArray()).toString();
        expect(text).toBe('second version!');
        const empty = await bus.blobs.put('docs', 'empty', Readable.from([]));
        expect(empty.size).toBe(0);
        expect((await readAll((await bus.blobs.get('docs', 'empty'))!)).size).toBe(0);
        expect(await bus.blobs.get('docs', 'missing')).toBeNull();
        expect(await bus.blobs.info('nobucket', 'missing')).toBeNull();
        expect(await bus.blobs.get('nobucket', 'missing')).toBeNull();
      });
    });

    describe('tracing', () => {
      it('carries the caller trace context to request, event and durable handlers', async () => {
        const bus = await newBus(undefined, { tracing: true });
        const traceId = randomBytes(16).toString('hex');
        const parent = trace.setSpanContext(ROOT_CONTEXT, {
          traceId,
          spanId: randomBytes(8).toString('hex'),
          traceFlags: TraceFlags.SAMPLED,
        });
        const seen = new Collector<{
          kind: string;
          traceparent?: string;
          activeTraceId?: string;
          custom?: string;
        }>();
        const note = (kind: string, headers: Record<string, string>) =>
          seen.push({
            kind,
            traceparent: headers.traceparent,
            activeTraceId: trace.getSpanContext(context.active())?.traceId,
            custom: headers['x-custom'],
          });
        bus.handle('svc.trace.req', (_p, meta) => void note('request', meta.headers));
        bus.subscribe('evt.trace.happened', (_p, meta) => note('event', meta.headers));
        await bus.ensureStream({ name: 'TRACE', subjects: ['trace.>'] });
        await bus.consume({ stream: 'TRACE', durable: 'w' }, async (_p, ctx) => note('durable', ctx.headers));
        await roundTrip(bus);
        await context.with(parent, async () => {
          await bus.request('svc.trace.req', {}, { headers: { 'x-custom': 'yes' } });
          await bus.publish('evt.trace.happened', {}, { headers: { 'x-custom': 'yes' } });
          await bus.publishDurable('trace.job', {}, { headers: { 'x-custom': 'yes' } });
        });
        const items = await seen.waitFor(3);
        expect(items.map((i) => i.kind).sort()).toEqual(['durable', 'event', 'request']);
        for (const i of items) {
          expect(i.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
          expect(i.activeTraceId).toBe(traceId);
          expect(i.custom).toBe('yes');
        }
      });

      it('without tracing sends no trace headers and makes no propagation calls, keeping its own headers', async () => {
        const bus = await newBus(undefined, { tracing: false });
        const parent = trace.setSpanContext(ROOT_CONTEXT, {
          traceId: randomBytes(16).toString('hex'),
          spanId: randomBytes(8).toString('hex'),
          traceFlags: TraceFlags.SAMPLED,
        });
        const seen = new Collector<{ kind: string; headers: Record<string, string> }>();
        const note = (kind: string, headers: Record<string, string>) =>
          seen.push({ kind, headers: { ...headers } });
        bus.handle('svc.plain.req', (_p, meta) => void note('request', meta.headers));
        bus.subscribe('evt.plain.happened', (_p, meta) => note('event', meta.headers));
        await bus.ensureStream({ name: 'PLAIN', subjects: ['plain.>'] });
        await bus.consume({ stream: 'PLAIN', durable: 'w' }, async (_p, ctx) => note('durable', ctx.headers));
        await roundTrip(bus);
        const inject = vi.spyOn(propagation, 'inject');
        const extract = vi.spyOn(propagation, 'extract');
        try {
          await context.with(parent, async () => {
            await bus.request('svc.plain.req', {}, { headers: { 'x-custom': 'yes' } });
            await bus.publish('evt.plain.happened', {}, { headers: { 'x-custom': 'yes' } });
            await bus.publishDurable('plain.job', {}, { headers: { 'x-custom': 'yes' } });
            await bus.publish('evt.plain.happened', {});
          });
          const items = await seen.waitFor(4);
          expect(items.map((i) => i.kind).sort()).toEqual(['durable', 'event', 'event', 'request']);
          for (const i of items) {
            expect(
              Object.keys(i.headers).filter((k) => /^(traceparent|tracestate|baggage)$/i.test(k)),
            ).toEqual([]);
          }
          expect(items.filter((i) => i.headers['x-custom'] === 'yes')).toHaveLength(3);
          expect(inject).not.toHaveBeenCalled();
          expect(extract).not.toHaveBeenCalled();
        } finally {
          inject.mockRestore();
          extract.mockRestore();
        }
      });
    });

    describe('metrics', () => {
      it('counts requests by outcome, their durations, publishes and durable deliveries', async () => {
        const bus = await newBus();
        const ok = { subject: 'svc.metrics.ok', outcome: 'ok' };
        const notFound = { subject: 'svc.metrics.missing', outcome: 'not_found' };
        const before = {
          ok: await metricValue(busRequests, ok),
          notFound: await metricValue(busRequests, notFound),
          timings: await metricValue(
            busRequestSeconds,
            { subject: 'svc.metrics.ok' },
            'chronicler_bus_request_duration_seconds_count',
          ),
          core: await metricValue(busMessagesPublished, { kind: 'core' }),
          durable: await metricValue(busMessagesPublished, { kind: 'durable' }),
          acks: await metricValue(busDeliveries, { stream: 'METRICS', durable: 'w', outcome: 'ack' }),
          naks: await metricValue(busDeliveries, { stream: 'METRICS', durable: 'w', outcome: 'nak' }),
          handled: await metricValue(busHandled, ok),
          handledNotFound: await metricValue(busHandled, notFound),
          handlerTimings: await metricValue(
            busHandlerSeconds,
            { subject: 'svc.metrics.ok' },
            'chronicler_bus_handler_duration_seconds_count',
          ),
          redeliveries: await metricValue(busRedeliveries, { stream: 'METRICS', durable: 'w' }),
        };
        bus.handle('svc.metrics.ok', () => 1);
        bus.handle('svc.metrics.missing', () => {
          throw new ServiceError('not_found', 'no such thing');
        });
        await bus.request('svc.metrics.ok', {});
        await bus.request('svc.metrics.ok', {});
        await serviceErrorOf(bus.request('svc.metrics.missing', {}));
        await bus.publish('evt.metrics.x', {});
        await bus.ensureStream({ name: 'METRICS', subjects: ['metrics.>'] });
        await bus.publishDurable('metrics.x', {});
        const done = new Collector<number>();
        const consumer = await bus.consume(
          { stream: 'METRICS', durable: 'w', backoffMs: 10 },
          async (_p, ctx) => {
            done.push(ctx.deliveryCount);
            if (ctx.deliveryCount === 1) throw new Error('once');
          },
        );
        await done.waitFor(2);
        await consumer.stop(); // waits until the second delivery is acked (and counted)
        expect(await metricValue(busRequests, ok)).toBe(before.ok + 2);
        expect(await metricValue(busRequests, notFound)).toBe(before.notFound + 1);
        expect(
          await metricValue(
            busRequestSeconds,
            { subject: 'svc.metrics.ok' },
            'chronicler_bus_request_duration_seconds_count',
          ),
        ).toBe(before.timings + 2);
        expect(await metricValue(busMessagesPublished, { kind: 'core' })).toBeGreaterThanOrEqual(
          before.core + 1,
        );
        expect(await metricValue(busMessagesPublished, { kind: 'durable' })).toBeGreaterThanOrEqual(
          before.durable + 1,
        );
        expect(await metricValue(busDeliveries, { stream: 'METRICS', durable: 'w', outcome: 'nak' })).toBe(
          before.naks + 1,
        );
        expect(await metricValue(busDeliveries, { stream: 'METRICS', durable: 'w', outcome: 'ack' })).toBe(
          before.acks + 1,
        );
        // The handler side, in the same process here: both ends count the same requests.
        expect(await metricValue(busHandled, ok)).toBe(before.handled + 2);
        expect(await metricValue(busHandled, notFound)).toBe(before.handledNotFound + 1);
        expect(
          await metricValue(
            busHandlerSeconds,
            { subject: 'svc.metrics.ok' },
            'chronicler_bus_handler_duration_seconds_count',
          ),
        ).toBe(before.handlerTimings + 2);
        expect(await metricValue(busRedeliveries, { stream: 'METRICS', durable: 'w' })).toBe(
          before.redeliveries + 1,
        );
      });
    });

    describe('lifecycle', () => {
      it('close() lets a handler in flight answer, then refuses new calls', async () => {
        const prefix = uniquePrefix();
        const server = await newBus(prefix);
        const client = await newBus(prefix);
        const started = deferred();
        const release = gate();
        server.handle('svc.close.op', async () => {
          started.resolve();
          await release.promise;
          // a handler finishing during close() may still send what its work produced
          await server.publish('evt.close.done', { ok: true });
          return 'finished';
        });
        const events = new Collector<unknown>();
        client.subscribe('evt.close.done', (p) => events.push(p));
        await roundTrip(server);
        await roundTrip(client);
        const reply = client.request('svc.close.op', {});
        await started.promise;
        let closed = false;
        const closing = server.close().then(() => (closed = true));
        await roundTrip(client);
        expect(closed).toBe(false);
        release.resolve();
        await closing;
        expect(await reply).toBe('finished');
        expect(await events.waitFor(1)).toEqual([{ ok: true }]);
        expect(server.isConnected()).toBe(false);
        expect(() => server.handle('svc.other', () => 1)).toThrow(ServiceError);
        expect((await serviceErrorOf(server.request('svc.close.op', {}))).code).toBe('unavailable');
        expect((await serviceErrorOf(server.publish('evt.x', {}))).code).toBe('unavailable');
        expect((await serviceErrorOf(client.request('svc.close.op', {}))).code).toBe('unavailable');
        expect(client.isConnected()).toBe(true);
      });
    });
  });
}

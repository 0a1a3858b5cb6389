import { ROOT_CONTEXT, TraceFlags, context, propagation, trace } from '@opentelemetry/api';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { ServiceError } from '../../errors.ts';
import {
  busDeliveries,
  busHandled,
  busHandlerSeconds,
  busMessagesPublished,
  busRedeliveries,
  busRequestSeconds,
  busRequests,
} from '../../ops/metrics.ts';
import {
  Collector,
  blobSource,
  deferred,
  metricValue,
  readAll,
  roundTrip,
  serviceErrorOf,
  uniquePrefix,
  type Harness,
} from './support.ts';

/** Blobs, trace context, metrics and close(), the same on every bus. */
export function blobsAndTelemetryContract({ newBus, gate }: Harness): void {
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

    it('reads a byte range from an offset: within a chunk, across chunk boundaries, near the end, clamped to the size', async () => {
      const bus = await newBus();
      const data = randomBytes(1024 * 1024 + 4321);
      await bus.blobs.put(
        'audio',
        'long.ogg',
        Readable.from([data.subarray(0, 300_000), data.subarray(300_000)]),
      );
      const read = async (start: number, end: number) =>
        Buffer.concat(await (await bus.blobs.get('audio', 'long.ogg', { start, end }))!.toArray());
      for (const [start, end] of [
        [0, 999],
        [1000, 1999],
        [131_000, 400_000],
        [data.length - 70_000, data.length - 1],
        [data.length - 1, data.length - 1],
        [data.length - 5, data.length + 100],
      ]) {
        const want = data.subarray(start, Math.min(end!, data.length - 1) + 1);
        expect((await read(start!, end!)).equals(want), `bytes ${start}-${end}`).toBe(true);
      }
      expect((await read(data.length, data.length + 10)).length).toBe(0);
      expect(await bus.blobs.get('audio', 'missing.ogg', { start: 0, end: 10 })).toBeNull();
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
          expect(Object.keys(i.headers).filter((k) => /^(traceparent|tracestate|baggage)$/i.test(k))).toEqual(
            [],
          );
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
}

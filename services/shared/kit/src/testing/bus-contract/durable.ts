import { describe, expect, it } from 'vitest';
import type { DeadLetter, DurableContext } from '../../bus/types.ts';
import {
  Collector,
  deferred,
  type Deferred,
  roundTrip,
  serviceErrorOf,
  sleep,
  uniquePrefix,
  type Harness,
} from './support.ts';

/** Durable streams and their consumers, as every bus keeps them. */
export function durableContract({ newBus, gate }: Harness): void {
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
      await bus.consume({ stream: 'JOBS', durable: 'w', backoffMs: 50, ackWaitMs: 5000 }, async (p, ctx) => {
        seen.push(record(p, ctx));
        if (ctx.deliveryCount === 1) throw new Error('transient');
      });
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
      await bus.consume({ stream: 'JOBS', durable: 'w', ackWaitMs: 400, concurrency: 2 }, async (p, ctx) => {
        seen.push(record(p, ctx));
        if (ctx.deliveryCount === 1) await stuck.promise;
      });
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
      await bus.consume({ stream: 'JOBS', durable: 'w', ackWaitMs: 400, concurrency: 2 }, async (p, ctx) => {
        seen.push(record(p, ctx));
        if (ctx.deliveryCount > 1) return;
        // three ack deadlines long, a heartbeat every 150 ms
        for (let i = 0; i < 8; i++) {
          await sleep(150);
          ctx.working();
        }
        finished.resolve();
      });
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
}

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { Readable } from 'node:stream';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { busConsumerPending } from '../ops/metrics.ts';
import {
  Collector,
  deferred,
  describeBusContract,
  serviceErrorOf,
  uniquePrefix,
} from '../testing/bus-contract/index.ts';
import { NatsBus } from './nats.ts';
import { BusNamespace } from './subject.ts';
import type { Bus, BusStatus } from './types.ts';
import { deleteStreams, ownedBy } from '../../../../../tests/support/bus-namespace.ts';

// Set by the cluster pass of `pnpm test` (and .ci/run); the embedded pass unsets it, so these
// run once and not again against the same server.
const NATS_URL = process.env.NATS_URL ?? '';
const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

/** Why the NATS tests cannot run here, or null when they can. */
async function natsUnavailable(url: string): Promise<string | null> {
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: url, timeout: 2000, reconnect: false });
  } catch (err) {
    return `no NATS server answers at ${url} (${(err as Error).message}); set NATS_URL or start nats-server -js`;
  }
  try {
    await nc.jetstreamManager({ timeout: 2000 });
    return null;
  } catch (err) {
    return `the NATS server at ${url} has no JetStream (${(err as Error).message}); start it with -js`;
  } finally {
    await nc.close();
  }
}

const unavailable =
  NATS_URL === ''
    ? 'NATS_URL is not set (e.g. nats://127.0.0.1:4222, a server started with -js)'
    : await natsUnavailable(NATS_URL);

/** Deletes the streams and buckets that tests created under their prefixes on the shared server. */
async function deleteTestStreams(prefixes: Set<string>): Promise<void> {
  if (prefixes.size === 0) return;
  const owners = [...prefixes].map(ownedBy);
  await deleteStreams(NATS_URL, (n) => owners.some((owns) => owns(n)));
}

/** Retries `fn` until it succeeds or the deadline passes (then rethrows its last error). */
async function eventually<T>(fn: () => Promise<T>, deadlineMs: number, intervalMs = 200): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** A nats-server of the test's own, so it can be killed and restarted. */
class PrivateNatsServer {
  private proc: ChildProcess | null = null;
  private constructor(
    readonly port: number,
    readonly storeDir: string,
  ) {}

  static async create(): Promise<PrivateNatsServer> {
    return new PrivateNatsServer(
      await freePort(),
      fs.mkdtempSync(path.join(os.tmpdir(), 'chronicler-nats-')),
    );
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const proc = spawn(
      NATS_SERVER_BIN,
      ['-a', '127.0.0.1', '-p', String(this.port), '-js', '-sd', this.storeDir],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.proc = proc;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail(new Error(`nats-server not ready after 15 s:\n${log}`)), 15_000);
      const onData = (d: Buffer) => {
        log += d.toString();
        if (log.includes('Server is ready')) finish();
      };
      const onExit = (code: number | null) => fail(new Error(`nats-server exited (${code}):\n${log}`));
      function cleanup() {
        clearTimeout(timer);
        proc.stderr?.off('data', onData);
        proc.stdout?.off('data', onData);
        proc.off('exit', onExit);
      }
      function finish() {
        cleanup();
        resolve();
      }
      function fail(err: Error) {
        cleanup();
        reject(err);
      }
      proc.stderr?.on('data', onData);
      proc.stdout?.on('data', onData);
      proc.once('exit', onExit);
      proc.once('error', (err) => fail(err));
    });
    // keep draining the pipes so the server never blocks on a full one
    proc.stderr?.resume();
    proc.stdout?.resume();
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    this.proc = null;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = once(proc, 'exit');
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  async destroy(): Promise<void> {
    await this.stop();
    fs.rmSync(this.storeDir, { recursive: true, force: true });
  }
}

if (unavailable) {
  console.warn(`[bus] NatsBus tests skipped: ${unavailable}`);
  describe.skip(`NatsBus (skipped: ${unavailable})`, () => {
    it('needs a NATS server with JetStream', () => {});
  });
} else {
  const prefixes = new Set<string>();
  afterAll(() => deleteTestStreams(prefixes));

  describeBusContract('NatsBus', async ({ prefix, tracing }) => {
    prefixes.add(prefix);
    return NatsBus.connect({ url: NATS_URL, prefix, name: 'bus-contract', tracing });
  });

  describe('NatsBus consumer lag', () => {
    it('reports the messages a durable has not been handed yet, and forgets the durable once stopped', async () => {
      const prefix = uniquePrefix();
      prefixes.add(prefix);
      const bus = await NatsBus.connect({ url: NATS_URL, prefix, name: 'lag-test' });
      const labels = { stream: 'LAG', durable: 'slow' };
      const pending = async () =>
        (await busConsumerPending.get()).values.find(
          (v) => v.labels.stream === labels.stream && v.labels.durable === labels.durable,
        )?.value;
      try {
        await bus.ensureStream({ name: 'LAG', subjects: ['lag.>'] });
        for (let i = 0; i < 4; i++) await bus.publishDurable('lag.x', { i });
        const release = deferred();
        const started = new Collector<number>();
        // One at a time, the first held: three stay on the server undelivered.
        const consumer = await bus.consume({ stream: 'LAG', durable: 'slow', concurrency: 1 }, async () => {
          started.push(1);
          await release.promise;
        });
        await started.waitFor(1);
        await eventually(async () => expect(await pending()).toBe(3), 10_000);
        release.resolve();
        await eventually(async () => expect(await pending()).toBe(0), 10_000);
        await consumer.stop();
        expect(await pending()).toBeUndefined();
      } finally {
        await bus.close();
      }
    }, 30_000);
  });

  describe('NatsBus acks not confirmed', () => {
    it('acks without waiting for a confirmation: each message handed once, none left to redeliver', async () => {
      const prefix = uniquePrefix();
      prefixes.add(prefix);
      const bus = await NatsBus.connect({ url: NATS_URL, prefix, name: 'ack-test' });
      const nc = await connect({ servers: NATS_URL });
      try {
        await bus.ensureStream({ name: 'QUICK', subjects: ['quick.>'] });
        for (let i = 0; i < 20; i++) await bus.publishDurable('quick.x', { i });
        const seen = new Collector<number>();
        const consumer = await bus.consume(
          { stream: 'QUICK', durable: 'quick', concurrency: 1, confirmAck: false, ackWaitMs: 1000 },
          async (payload) => {
            seen.push((payload as { i: number }).i);
          },
        );
        await seen.waitFor(20);
        const jsm = await nc.jetstreamManager();
        const info = () => jsm.consumers.info(bus.ns.stream('QUICK'), bus.ns.durable('quick'));
        await eventually(async () => expect((await info()).num_ack_pending).toBe(0), 10_000);
        // Past the ack deadline: an ack the server had not taken would have brought it back.
        await new Promise((r) => setTimeout(r, 1500));
        expect(seen.items).toEqual(Array.from({ length: 20 }, (_, i) => i));
        const after = await info();
        expect(after.num_pending).toBe(0);
        expect(after.num_redelivered).toBe(0);
        await consumer.stop();
      } finally {
        await nc.close();
        await bus.close();
      }
    }, 30_000);
  });

  describe('NatsBus resilience', () => {
    const buses: Bus[] = [];
    const servers: PrivateNatsServer[] = [];
    const ncs: NatsConnection[] = [];
    afterEach(async () => {
      await Promise.all(buses.splice(0).map((b) => b.close()));
      await Promise.all(ncs.splice(0).map((nc) => nc.close()));
      await Promise.all(servers.splice(0).map((s) => s.destroy()));
    });

    const noBinary = fs.existsSync(NATS_SERVER_BIN)
      ? ''
      : ` (skipped: no ${NATS_SERVER_BIN}; set NATS_SERVER_BIN)`;
    it.skipIf(noBinary)(
      `recovers by itself after nats-server restarts: request/reply and a durable consumer work again${noBinary}`,
      async () => {
        const server = await PrivateNatsServer.create();
        servers.push(server);
        await server.start();
        const bus = await NatsBus.connect({
          url: server.url,
          prefix: uniquePrefix(),
          name: 'restart-test',
          reconnectTimeWaitMs: 100,
        });
        buses.push(bus);
        const statuses = new Collector<BusStatus>();
        bus.onStatus(statuses.push);

        bus.handle('svc.restart.ping', () => 'pong');
        expect(await bus.request('svc.restart.ping', {})).toBe('pong');
        await bus.ensureStream({ name: 'R', subjects: ['r.>'] });
        const got = new Collector<number>();
        await bus.consume({ stream: 'R', durable: 'worker', ackWaitMs: 2000 }, async (p) =>
          got.push((p as { n: number }).n),
        );
        await bus.publishDurable('r.job', { n: 1 });
        await got.waitFor(1);

        await server.stop();
        await statuses.waitUntil((s) => s.includes('disconnected'), 10_000, 'a disconnected status');
        expect(bus.isConnected()).toBe(false);
        const [req, dur] = await Promise.all([
          serviceErrorOf(bus.request('svc.restart.ping', {}, { timeoutMs: 300 })),
          serviceErrorOf(bus.publishDurable('r.job', { n: -1 })),
        ]);
        expect(['timeout', 'unavailable']).toContain(req.code);
        expect(['timeout', 'unavailable']).toContain(dur.code);

        await server.start(); // same port, same store directory
        expect(await eventually(() => bus.request('svc.restart.ping', {}, { timeoutMs: 500 }), 20_000)).toBe(
          'pong',
        );
        await statuses.waitUntil((s) => s.includes('reconnected'), 10_000, 'a reconnected status');
        expect(bus.isConnected()).toBe(true);
        await eventually(() => bus.publishDurable('r.job', { n: 2 }, { msgId: 'after-restart' }), 20_000);
        // the consumer created before the restart receives it, without a new bus or consume()
        await got.waitUntil((items) => items.includes(2), 20_000, 'the message published after the restart');
      },
    );

    it('recreates its durable consumer and its stream when they disappear from the server', async () => {
      const prefix = uniquePrefix();
      prefixes.add(prefix);
      const bus = await NatsBus.connect({ url: NATS_URL, prefix, name: 'recreate-test' });
      buses.push(bus);
      await bus.ensureStream({ name: 'GONE', subjects: ['gone.>'] });
      const got = new Collector<number>();
      await bus.consume({ stream: 'GONE', durable: 'worker' }, async (p) => got.push((p as { n: number }).n));
      await bus.publishDurable('gone.x', { n: 1 });
      await got.waitFor(1);

      const nc = await connect({ servers: NATS_URL });
      ncs.push(nc);
      const jsm = await nc.jetstreamManager();
      // nats-server 2.9 sometimes fails a delete racing the consumer's own writes; retry it
      await eventually(async () => {
        try {
          await jsm.consumers.delete(`${prefix}_GONE`, `${prefix}_worker`);
        } catch (err) {
          if (!/consumer not found/i.test((err as Error).message)) throw err;
        }
      }, 10_000);
      await bus.publishDurable('gone.x', { n: 2 });
      await got.waitUntil((items) => items.includes(2), 20_000, 'a message after the consumer was deleted');

      await eventually(() => jsm.streams.delete(`${prefix}_GONE`), 10_000);
      // publishing fails until the consumer loop has recreated the stream from its definition
      await eventually(() => bus.publishDurable('gone.x', { n: 3 }), 20_000);
      await got.waitUntil((items) => items.includes(3), 20_000, 'a message after the stream was deleted');
    });
  });

  describe('NatsBlobStore ranged reads', () => {
    it('finds the chunk of an offset when two puts interleaved their chunks in the stream', async () => {
      const prefix = uniquePrefix();
      prefixes.add(prefix);
      const bus = await NatsBus.connect({ url: NATS_URL, prefix, name: 'range-test' });
      try {
        const chunk = 128 * 1024;
        const objects = [randomBytes(6 * chunk + 999), randomBytes(5 * chunk + 17)];
        // The two sources take turns chunk by chunk, so their puts publish in turn.
        let turn = 0;
        const done = [false, false];
        const sources = objects.map(async function* (data, who) {
          for (let at = 0; at < data.length; at += chunk) {
            while (turn % 2 !== who && !done[1 - who]) await new Promise((r) => setTimeout(r, 1));
            yield data.subarray(at, at + chunk);
            turn++;
          }
          done[who] = true;
        });
        await Promise.all(sources.map((src, i) => bus.blobs.put('audio', `take-${i}.ogg`, src)));
        const jsm = await bus.jsm();
        const stream = `OBJ_${new BusNamespace(prefix).bucket('audio')}`;
        const info = await jsm.streams.info(stream, { subjects_filter: '>' });
        expect(info.state.last_seq - info.state.first_seq + 1).toBe(2 + 7 + 6);
        for (const [i, data] of objects.entries()) {
          for (const start of [chunk * 3 + 5, data.length - chunk - 10, data.length - 3]) {
            const got = Buffer.concat(
              await (await bus.blobs.get('audio', `take-${i}.ogg`, { start, end: start + 1000 }))!.toArray(),
            );
            expect(got.equals(data.subarray(start, start + 1001)), `take ${i} from ${start}`).toBe(true);
          }
        }
        // Interleaved indeed: some object's chunks do not sit at consecutive sequences.
        const seqsOf = new Map<string, number[]>();
        for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
          const m = await jsm.streams.getMessage(stream, { seq });
          if (m.subject.includes('.C.')) seqsOf.set(m.subject, [...(seqsOf.get(m.subject) ?? []), seq]);
        }
        expect([...seqsOf.values()].some((seqs) => seqs.at(-1)! - seqs[0]! + 1 > seqs.length)).toBe(true);
      } finally {
        await bus.close();
      }
    });
  });

  describe('NatsBlobStore.removeAbandoned', () => {
    it('purges the chunks a put that died left, once idle long enough; objects and a put in progress stay', async () => {
      const prefix = uniquePrefix();
      prefixes.add(prefix);
      const bus = await NatsBus.connect({ url: NATS_URL, prefix, name: 'abandoned-test' });
      const raw = await connect({ servers: NATS_URL });
      try {
        await bus.blobs.put('audio', 'kept.ogg', Readable.from([Buffer.from('whole recording')]));
        let finish!: () => void;
        const more = new Promise<void>((r) => (finish = r));
        async function* slow() {
          yield Buffer.from('first part');
          await more;
          yield Buffer.from(' and the rest');
        }
        const running = bus.blobs.put('audio', 'uploading.ogg', slow());
        // What a process killed mid-upload leaves: chunks that no object's meta names.
        const js = raw.jetstream();
        const dead = `$O.${new BusNamespace(prefix).bucket('audio')}.C.deadnuid0000000000000`;
        for (let i = 0; i < 3; i++) await js.publish(dead, Buffer.from(`partial ${i}`));

        // Both written just now: neither is idle for a minute.
        expect(await bus.blobs.removeAbandoned('audio', 60_000)).toBe(0);
        finish();
        await running;
        expect(await bus.blobs.removeAbandoned('audio', 0)).toBe(1);
        expect(await bus.blobs.removeAbandoned('audio', 0)).toBe(0);
        for (const [name, text] of [
          ['kept.ogg', 'whole recording'],
          ['uploading.ogg', 'first part and the rest'],
        ] as const) {
          const stream = await bus.blobs.get('audio', name);
          expect(Buffer.concat(await stream!.toArray()).toString()).toBe(text);
        }
      } finally {
        await raw.close();
        await bus.close();
      }
    });
  });
}

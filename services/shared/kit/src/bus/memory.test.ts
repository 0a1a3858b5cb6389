import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  Collector,
  describeBusContract,
  roundTrip,
  serviceErrorOf,
  sleep,
  uniquePrefix,
} from '../testing/bus-contract/index.ts';
import { RetryLater } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { MemoryBus } from './memory.ts';
import { BusNamespace } from './subject.ts';

const tmpDirs: string[] = [];
function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'chronicler-bus-'));
  tmpDirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

describeBusContract(
  'MemoryBus (in memory)',
  async ({ prefix, dataDir, tracing }) => new MemoryBus({ prefix, dataDir, name: 'test', tracing }),
);

// The same contract with streams and blobs on disk.
const sharedDataDir = tmpDir();
describeBusContract(
  'MemoryBus (with dataDir)',
  async ({ prefix, dataDir, tracing }) =>
    new MemoryBus({ prefix, dataDir: dataDir ?? sharedDataDir, name: 'test', tracing }),
);

describe('MemoryBus persistence', () => {
  const open: MemoryBus[] = [];
  const bus = (prefix: string, dataDir: string) => {
    const b = new MemoryBus({ prefix, dataDir, name: 'test' });
    open.push(b);
    return b;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((b) => b.close()));
  });

  type Seen = { n: number; deliveryCount: number; seq: number };

  it('after a restart on the same dataDir, redelivers unacked messages (counting earlier deliveries) and never acked ones', async () => {
    const dir = tmpDir();
    const prefix = uniquePrefix();
    const first = bus(prefix, dir);
    await first.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
    for (let n = 1; n <= 4; n++) await first.publishDurable('jobs.x', { n }, { msgId: `job-${n}` });
    const before = new Collector<Seen>();
    await first.consume(
      { stream: 'JOBS', durable: 'w', maxDeliver: 3, backoffMs: 60_000 },
      async (p, ctx) => {
        const n = (p as { n: number }).n;
        before.push({ n, deliveryCount: ctx.deliveryCount, seq: ctx.seq });
        if (n % 2 === 0) throw new Error('not now'); // 2 and 4 wait for a backoff that outlives the process
      },
    );
    await before.waitFor(4);
    await first.close();

    const second = bus(prefix, dir); // no ensureStream: the definition is on disk too
    expect(await second.publishDurable('jobs.x', { n: 5 })).toEqual({
      stream: 'JOBS',
      seq: 5,
      duplicate: false,
    });
    expect(await second.publishDurable('jobs.x', { n: 1 }, { msgId: 'job-1' })).toEqual({
      stream: 'JOBS',
      seq: 1,
      duplicate: true,
    });
    const after = new Collector<Seen>();
    await second.consume({ stream: 'JOBS', durable: 'w', maxDeliver: 3, backoffMs: 10 }, async (p, ctx) => {
      after.push({ n: (p as { n: number }).n, deliveryCount: ctx.deliveryCount, seq: ctx.seq });
    });
    await after.waitFor(3);
    await roundTrip(second);
    expect(after.items).toEqual([
      { n: 2, deliveryCount: 2, seq: 2 },
      { n: 4, deliveryCount: 2, seq: 4 },
      { n: 5, deliveryCount: 1, seq: 5 },
    ]);
  });

  it('keeps what a crashed process never acked: the message in progress and those after it', async () => {
    const dir = tmpDir();
    const prefix = uniquePrefix();
    const memoryModule = path.join(path.dirname(fileURLToPath(import.meta.url)), 'memory.ts');
    const script = path.join(tmpDir(), 'crash.mts');
    fs.writeFileSync(
      script,
      `import { MemoryBus } from ${JSON.stringify(memoryModule)};
const bus = new MemoryBus({ prefix: ${JSON.stringify(prefix)}, dataDir: ${JSON.stringify(dir)} });
await bus.ensureStream({ name: 'JOBS', subjects: ['jobs.>'] });
for (let n = 1; n <= 3; n++) await bus.publishDurable('jobs.x', { n });
await bus.consume({ stream: 'JOBS', durable: 'w' }, async (p) => {
  // concurrency 1: message 2 arrives only after message 1 was acked and its ack written
  if (p.n === 2) process.exit(3); // dies mid-work, without close()
});
`,
    );
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', script], {
      cwd: process.cwd(),
      timeout: 20_000,
    });
    await expect(run).rejects.toMatchObject({ code: 3 });

    const after = new Collector<Seen>();
    const restarted = bus(prefix, dir);
    await restarted.consume({ stream: 'JOBS', durable: 'w' }, async (p, ctx) => {
      after.push({ n: (p as { n: number }).n, deliveryCount: ctx.deliveryCount, seq: ctx.seq });
    });
    await after.waitFor(2);
    await roundTrip(restarted);
    expect(after.items).toEqual([
      { n: 2, deliveryCount: 2, seq: 2 },
      { n: 3, deliveryCount: 1, seq: 3 },
    ]);
  });

  it('compacts its files when opened: acked progress folds into one line, expired messages go', async () => {
    const dir = tmpDir();
    const prefix = uniquePrefix();
    const ns = new BusNamespace(prefix);
    const streamDir = path.join(dir, 'bus', 'streams', ns.stream('JOBS'));
    const consumerLog = path.join(streamDir, 'consumers', `${ns.durable('w')}.jsonl`);
    const lines = (f: string) => fs.readFileSync(f, 'utf8').trim().split('\n');

    const first = bus(prefix, dir);
    await first.ensureStream({ name: 'JOBS', subjects: ['jobs.>'], maxAgeMs: 1000 });
    for (let n = 1; n <= 50; n++) await first.publishDurable('jobs.x', { n });
    const seen = new Collector<number>();
    await first.consume({ stream: 'JOBS', durable: 'w' }, async (p) => seen.push((p as { n: number }).n));
    await seen.waitFor(50);
    await first.close();
    expect(lines(consumerLog)).toHaveLength(100); // a delivery and an ack per message

    const second = bus(prefix, dir);
    expect(lines(consumerLog)).toEqual(['{"floor":50}']);
    await second.close();

    await sleep(1100); // past maxAge: nothing to await but time
    const third = bus(prefix, dir);
    expect(lines(path.join(streamDir, 'messages.jsonl'))).toEqual(['{"lastSeq":50}']);
    expect(await third.publishDurable('jobs.x', { n: 51 })).toMatchObject({ seq: 51 });
  });

  it('does not deliver messages older than maxAgeMs', async () => {
    const b = bus(uniquePrefix(), tmpDir());
    await b.ensureStream({ name: 'LIVE', subjects: ['live.>'], maxAgeMs: 200 });
    await b.publishDurable('live.x', { n: 1 });
    await sleep(300);
    await b.publishDurable('live.x', { n: 2 });
    const seen = new Collector<number>();
    await b.consume({ stream: 'LIVE', durable: 'w' }, async (p) => seen.push((p as { n: number }).n));
    await seen.waitFor(1);
    await b.publishDurable('live.x', { n: 3 });
    expect(await seen.waitFor(2)).toEqual([2, 3]);
  });

  it('keeps blobs across restarts and leaves neither a temp file nor a changed object behind a failed put', async () => {
    const dir = tmpDir();
    const prefix = uniquePrefix();
    const first = bus(prefix, dir);
    await first.blobs.put('audio', 'a.ogg', Readable.from([Buffer.from('original')]));
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('partial ');
      throw new Error('upload aborted');
    }
    await expect(first.blobs.put('audio', 'a.ogg', failing())).rejects.toThrow('upload aborted');
    await first.close();

    const second = bus(prefix, dir);
    const text = Buffer.concat(await (await second.blobs.get('audio', 'a.ogg'))!.toArray()).toString();
    expect(text).toBe('original');
    const bucketDir = path.join(dir, 'blobs', new BusNamespace(prefix).bucket('audio'));
    expect(fs.readdirSync(bucketDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('lets buses of one process and prefix talk through the same in-process broker, and closes it with the last one', async () => {
    const prefix = uniquePrefix();
    const a = new MemoryBus({ prefix, name: 'a' });
    const b = new MemoryBus({ prefix, name: 'b' });
    open.push(a, b);
    b.handle('svc.b.hello', () => 'hi from b');
    expect(await a.request('svc.b.hello', {})).toBe('hi from b');
    await a.ensureStream({ name: 'S', subjects: ['s.>'] });
    await b.close();
    // a still works, b's handler is gone
    expect((await serviceErrorOf(a.request('svc.b.hello', {}))).code).toBe('unavailable');
    expect(await a.publishDurable('s.x', 1)).toMatchObject({ seq: 1 });
    await a.close();
    // with both closed, the broker (and its memory-only streams) are gone
    const c = new MemoryBus({ prefix, name: 'c' });
    open.push(c);
    expect((await serviceErrorOf(c.publishDurable('s.x', 1))).code).toBe('unavailable');
  });
});

describe('a durable handler that says "not yet"', () => {
  it('is logged at debug while it is redelivered, and as a failure at its last delivery or for any other error', async () => {
    const lines: { level: string; msg: string; deliveryCount?: number }[] = [];
    const logger = createLogger('test', {
      level: 'debug',
      destination: { write: (l: string) => void lines.push(JSON.parse(l)) },
    });
    const bus = new MemoryBus({ prefix: uniquePrefix(), name: 'test', logger });
    try {
      await bus.ensureStream({ name: 'WAIT', subjects: ['wait.>'] });
      const seen = new Collector<number>();
      await bus.consume({ stream: 'WAIT', durable: 'w', maxDeliver: 3, backoffMs: 1 }, async (p, ctx) => {
        seen.push(ctx.deliveryCount);
        if ((p as { kind: string }).kind === 'wait') throw new RetryLater('the start is not stored yet');
        if (ctx.deliveryCount === 1) throw new Error('database down');
      });
      await bus.publishDurable('wait.a', { kind: 'wait' });
      await seen.waitFor(3);
      await bus.publishDurable('wait.b', { kind: 'broken' });
      await seen.waitFor(5);
      const failed = lines.filter((l) => l.msg === 'durable handler failed');
      const notYet = lines.filter((l) => l.msg === 'durable message not ready yet; redelivered later');
      expect(notYet.map((l) => [l.level, l.deliveryCount])).toEqual([
        ['debug', 1],
        ['debug', 2],
      ]);
      // The last delivery of the waiting message (then dead-lettered), and the other error.
      expect(failed.map((l) => [l.level, l.deliveryCount])).toEqual([
        ['warn', 3],
        ['warn', 1],
      ]);
    } finally {
      await bus.close();
    }
  });
});

// `pnpm bench bus`: the kit's NATS bus against the raw nats.js client, side by side in one
// run: interleaved rounds (the order alternates each round), medians over the rounds, the
// ratios printed against the budgets of issue 16 (kit >= 0.8x raw publishes/s; kit
// round-trip p50 <= 1.1x raw). The in-process bus gets its own row for comparison.
//
// "Raw" is what a service would write by hand with nats.js and no kit: the same connection
// options (noAsyncTraces included), JSON.stringify + Buffer.from to send (the cheapest UTF-8
// encoding for small messages, as the kit uses), TextDecoder + JSON.parse to receive, and the same { ok, data } reply envelope, so the ratio is the cost
// of the kit itself (subjects, headers, metrics, error mapping, tracing switch).
// Needs NATS at NATS_URL (default nats://127.0.0.1:4222); without it only the in-process
// bus is measured. BENCH_ROUNDS, BENCH_PUBLISHES, BENCH_ROUND_TRIPS tune the run.
import { createBus, type Bus } from '@chronicler/kit';
import { connect, type NatsConnection } from 'nats';
import { randomBytes } from 'node:crypto';
import { median, percentile, printTable } from './report.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 50_000);
const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 2000);
const WARMUP = 200;
const PUBLISH_BUDGET = 0.8;
const P50_BUDGET = 1.1;

const payload = { id: 'x'.repeat(36), name: 'Session 12: The Sunken Temple', n: 42 };

/** One way of sending: publish throughput and sequential request/reply latencies. */
interface Client {
  label: string;
  /** Sends `n` events without waiting and resolves when the subscriber has received them all. */
  publishMany(n: number): Promise<void>;
  /** One request/reply round trip. */
  roundTrip(): Promise<void>;
  close(): Promise<void>;
}

interface Round {
  publishPerSec: number;
  p50Ms: number;
  p99Ms: number;
  requestsPerSec: number;
}

function counter(): { received(): void; until(n: number): Promise<void> } {
  let count = 0;
  let target = Infinity;
  let done: (() => void) | undefined;
  return {
    received() {
      if (++count >= target) done?.();
    },
    until(n) {
      count = 0;
      target = n;
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${count} of ${n} messages arrived`)), 120_000);
        done = () => {
          clearTimeout(timer);
          target = Infinity;
          resolve();
        };
      });
    },
  };
}

async function kitClient(label: string, bus: Bus): Promise<Client> {
  const events = counter();
  const sub = bus.subscribe('evt.bench.>', () => events.received());
  const echo = bus.handle('svc.bench.echo', (p) => p, { queue: 'bench' });
  await bus.request('svc.bench.echo', payload); // both subscriptions are at the server now
  return {
    label,
    async publishMany(n) {
      const all = events.until(n);
      for (let i = 0; i < n; i++) void bus.publish('evt.bench.happened', payload);
      await all;
    },
    async roundTrip() {
      await bus.request('svc.bench.echo', payload);
    },
    async close() {
      await sub.unsubscribe();
      await echo.unsubscribe();
      await bus.close();
    },
  };
}

async function rawClient(natsUrl: string, prefix: string): Promise<Client> {
  const nc: NatsConnection = await connect({
    servers: natsUrl.split(','),
    name: 'bench-raw',
    noAsyncTraces: true,
    pingInterval: 10_000,
    maxPingOut: 3,
  });
  const dec = new TextDecoder();
  const events = counter();
  const subject = `${prefix}.raw.evt.bench.happened`;
  const service = `${prefix}.raw.svc.bench.echo`;
  nc.subscribe(`${prefix}.raw.evt.bench.>`, {
    callback: (_err, m) => {
      JSON.parse(dec.decode(m.data));
      events.received();
    },
  });
  nc.subscribe(service, {
    queue: 'bench',
    callback: (_err, m) => {
      const data: unknown = JSON.parse(dec.decode(m.data));
      m.respond(Buffer.from(JSON.stringify({ ok: true, data })));
    },
  });
  await nc.flush();
  return {
    label: 'raw nats.js',
    async publishMany(n) {
      const all = events.until(n);
      for (let i = 0; i < n; i++) nc.publish(subject, Buffer.from(JSON.stringify(payload)));
      await all;
    },
    async roundTrip() {
      const reply = await nc.request(service, Buffer.from(JSON.stringify(payload)), { timeout: 5000 });
      const envelope = JSON.parse(dec.decode(reply.data)) as { ok: boolean };
      if (!envelope.ok) throw new Error('echo failed');
    },
    async close() {
      await nc.drain();
    },
  };
}

async function round(c: Client): Promise<Round> {
  const p0 = performance.now();
  await c.publishMany(PUBLISHES);
  const publishPerSec = PUBLISHES / ((performance.now() - p0) / 1000);
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const s = performance.now();
    await c.roundTrip();
    times.push(performance.now() - s);
  }
  const requestsPerSec = ROUND_TRIPS / ((performance.now() - t0) / 1000);
  times.sort((a, b) => a - b);
  return { publishPerSec, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), requestsPerSec };
}

export async function benchBus(): Promise<void> {
  const prefix = `bench${randomBytes(3).toString('hex')}`;
  const clients: Client[] = [];
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  try {
    clients.push(await rawClient(natsUrl, prefix));
    clients.push(await kitClient('kit NatsBus', await createBus({ natsUrl, prefix, name: 'bench' })));
  } catch (err) {
    console.log(`NATS not measured (${natsUrl}): ${(err as Error).message}`);
  }
  clients.push(await kitClient('kit in-process bus', await createBus({ prefix, name: 'bench' })));

  for (const c of clients) {
    await c.publishMany(PUBLISHES / 10); // warm-up: JIT, buffers, connections
    for (let i = 0; i < WARMUP; i++) await c.roundTrip();
  }
  const rounds = new Map<string, Round[]>(clients.map((c) => [c.label, []]));
  for (let r = 0; r < ROUNDS; r++) {
    // alternate the order, so neither side always runs on a warmer (or busier) machine
    const order = r % 2 === 0 ? clients : [...clients].reverse();
    for (const c of order) rounds.get(c.label)!.push(await round(c));
  }
  for (const c of clients) await c.close();

  const rows = clients.map((c) => {
    const rs = rounds.get(c.label)!;
    return {
      bus: c.label,
      publishPerSec: median(rs.map((x) => x.publishPerSec)),
      rtP50Ms: median(rs.map((x) => x.p50Ms)),
      rtP99Ms: median(rs.map((x) => x.p99Ms)),
      requestsPerSec: median(rs.map((x) => x.requestsPerSec)),
    };
  });
  printTable(
    `bus: ${ROUNDS} interleaved rounds of ${PUBLISHES} publishes and ${ROUND_TRIPS} sequential round trips; medians`,
    rows,
  );
  const raw = rows.find((r) => r.bus === 'raw nats.js');
  const kit = rows.find((r) => r.bus === 'kit NatsBus');
  if (raw && kit) {
    const pub = kit.publishPerSec / raw.publishPerSec;
    const p50 = kit.rtP50Ms / raw.rtP50Ms;
    const verdict = (ok: boolean) => (ok ? 'within budget' : 'OVER BUDGET');
    console.log(
      `kit/raw publishes per second: ${pub.toFixed(2)}x (budget >= ${PUBLISH_BUDGET}x: ${verdict(pub >= PUBLISH_BUDGET)})`,
    );
    console.log(
      `kit/raw round-trip p50: ${p50.toFixed(2)}x (budget <= ${P50_BUDGET}x: ${verdict(p50 <= P50_BUDGET)}); ` +
        `p99 ${(kit.rtP99Ms / raw.rtP99Ms).toFixed(2)}x`,
    );
  }
}

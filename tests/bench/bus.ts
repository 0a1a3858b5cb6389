// Bus baseline: request/reply round trip (p50/p99) and publish throughput, for the NATS
// bus and the in-process bus side by side in one run. Needs NATS at NATS_URL (default
// nats://127.0.0.1:4222); without it only the in-process bus is measured.
import { createBus, type Bus } from '@chronicler/kit';
import { randomBytes } from 'node:crypto';
import { percentile, printTable } from './report.ts';

const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 5000);
const PUBLISHES = Number(process.env.BENCH_PUBLISHES ?? 100_000);

interface Result {
  bus: string;
  p50Ms: number;
  p99Ms: number;
  requestsPerSec: number;
  publishPerSec: number;
}

async function measure(label: string, bus: Bus): Promise<Result> {
  const payload = { id: 'x'.repeat(36), name: 'Session 12: The Sunken Temple', n: 42 };
  const sub = bus.handle('svc.bench.echo', (p) => p, { queue: 'bench' });
  for (let i = 0; i < 200; i++) await bus.request('svc.bench.echo', payload); // warm-up
  const times: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const s = performance.now();
    await bus.request('svc.bench.echo', payload);
    times.push(performance.now() - s);
  }
  const rtSeconds = (performance.now() - t0) / 1000;
  await sub.unsubscribe();

  let received = 0;
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const events = bus.subscribe('evt.bench.>', () => {
    if (++received === PUBLISHES) resolveDone();
  });
  await new Promise((r) => setTimeout(r, 50)); // let the subscription reach the server
  const p0 = performance.now();
  for (let i = 0; i < PUBLISHES; i++) void bus.publish('evt.bench.happened', payload);
  await done;
  const pubSeconds = (performance.now() - p0) / 1000;
  await events.unsubscribe();

  times.sort((a, b) => a - b);
  return {
    bus: label,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    requestsPerSec: ROUND_TRIPS / rtSeconds,
    publishPerSec: PUBLISHES / pubSeconds,
  };
}

export async function benchBus(): Promise<void> {
  const prefix = `bench${randomBytes(3).toString('hex')}`;
  const results: Result[] = [];
  const memory = await createBus({ prefix, name: 'bench' });
  results.push(await measure('in-process', memory));
  await memory.close();
  const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  try {
    const nats = await createBus({ natsUrl, prefix, name: 'bench' });
    results.push(await measure('nats', nats));
    await nats.close();
  } catch (err) {
    console.log(`NATS not measured (${natsUrl}): ${(err as Error).message}`);
  }
  printTable(`bus: ${ROUND_TRIPS} sequential request/reply round trips, ${PUBLISHES} publishes`, results);
  const [mem, nats] = results;
  if (mem && nats) {
    console.log(
      `ratio nats/in-process: p50 latency ${(nats.p50Ms / mem.p50Ms).toFixed(1)}x, ` +
        `publish throughput ${(nats.publishPerSec / mem.publishPerSec).toFixed(2)}x`,
    );
  }
}

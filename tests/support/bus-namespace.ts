// The JetStream streams a test system leaves on the shared NATS server (its events, live
// streams, object stores and KV buckets, all named after its BUS_PREFIX). A system deletes
// its own when it stops, so that a machine running the suite again and again does not pile
// up thousands of streams and consumers; `.ci/run` also clears what earlier runs left
// (a run that was killed never stopped its systems):
//   node --import tsx tests/support/bus-namespace.ts
import { connect } from 'nats';
import { fileURLToPath } from 'node:url';

/** Whether a stream (events, an `OBJ_` object store, a `KV_` bucket) belongs to BUS_PREFIX `prefix`. */
export function ownedBy(prefix: string): (stream: string) => boolean {
  const starts = [`${prefix}_`, `OBJ_${prefix}_`, `KV_${prefix}_`];
  return (stream) => starts.some((s) => stream.startsWith(s));
}

/**
 * Streams of the prefixes that tests and benchmarks make up: `t` + 8 hex (test systems), `t` +
 * 10 hex (the kit's bus tests), `img` + 8 hex (the delivery test), `bench` + 6 hex.
 */
const TEST_STREAM = /^(?:OBJ_|KV_)?(?:t[0-9a-f]{8}|t[0-9a-f]{10}|img[0-9a-f]{8}|bench[0-9a-f]{6})_/;

/** Deletes every stream that `owned` accepts; answers how many went. */
export async function deleteStreams(natsUrl: string, owned: (stream: string) => boolean): Promise<number> {
  const nc = await connect({ servers: natsUrl, reconnect: false });
  try {
    const jsm = await nc.jetstreamManager();
    const names: string[] = [];
    for await (const s of jsm.streams.list()) names.push(s.config.name);
    const doomed = names.filter(owned);
    await Promise.all(doomed.map((n) => jsm.streams.delete(n)));
    return doomed.length;
  } finally {
    await nc.close();
  }
}

/** Every stream that a test or benchmark left behind. */
function deleteTestNamespaces(natsUrl: string): Promise<number> {
  return deleteStreams(natsUrl, (n) => TEST_STREAM.test(n));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  const n = await deleteTestNamespaces(url);
  console.log(`NATS at ${url}: deleted ${n} stream${n === 1 ? '' : 's'} left by earlier test runs`);
}

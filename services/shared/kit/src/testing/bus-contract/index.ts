import { afterEach, beforeAll, describe } from 'vitest';
import type { Bus } from '../../bus/types.ts';
import { blobsAndTelemetryContract } from './blobs-and-telemetry.ts';
import { durableContract } from './durable.ts';
import { messagingContract } from './messaging.ts';
import { deferred, registerTestTelemetry, uniquePrefix, type Deferred, type MakeBus } from './support.ts';

export {
  Collector,
  deferred,
  roundTrip,
  serviceErrorOf,
  sleep,
  uniquePrefix,
  type MakeBus,
} from './support.ts';

// One behavioural suite for every Bus implementation: behaviour both buses share is tested
// once, against each. Each test works under its own random prefix, so tests never see each
// other, also on a shared NATS server.

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

    messagingContract({ newBus, gate });
    durableContract({ newBus, gate });
    blobsAndTelemetryContract({ newBus, gate });
  });
}

// A load balancer in front of several gateways, as a cluster's Service and ingress put one
// there: each new TCP connection (a websocket, or a keep-alive HTTP connection) goes to the
// next gateway whose /readyz answers 200, as endpoints follow readiness, and to the next one
// when the connection is refused (ingress-nginx's proxy_next_upstream).
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, waitFor, type TestSystem } from './system.ts';

/** A gateway as the balancer sees it: where to connect, where to ask readiness. */
interface Backend {
  name: string;
  port: number;
  ops: string;
  ready: boolean;
  /** Connections the balancer has handed this gateway so far. */
  connections: number;
}

interface Balancer {
  url: string;
  close(): void;
}

async function startBalancer(backends: Backend[]): Promise<Balancer> {
  let turn = 0;
  const server = net.createServer((client) => {
    client.pause();
    const ready = backends.filter((b) => b.ready);
    const order = ready.length > 0 ? ready : backends;
    const first = turn++ % order.length;
    const tryConnect = (i: number): void => {
      if (i >= order.length) return void client.destroy();
      const backend = order[(first + i) % order.length]!;
      const upstream = net.connect(backend.port, '127.0.0.1');
      upstream.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNREFUSED') tryConnect(i + 1);
        else client.destroy();
      });
      upstream.once('connect', () => {
        backend.connections++;
        upstream.removeAllListeners('error');
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
        client.pipe(upstream).pipe(client);
        upstream.on('close', () => client.destroy());
        client.on('close', () => upstream.destroy());
        client.resume();
      });
    };
    tryConnect(0);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

/** The endpoints controller: polls every backend's /readyz until stopped. */
function followReadiness(backends: Backend[], everyMs = 100): { stop(): void } {
  let polling = true;
  void (async () => {
    while (polling) {
      for (const b of backends) b.ready = (await fetch(`${b.ops}/readyz`).catch(() => null))?.ok === true;
      await sleep(everyMs);
    }
  })();
  return {
    stop() {
      polling = false;
    },
  };
}

/** Two gateways behind a balancer, their readiness followed until `close()`. */
export interface BalancedGateways extends Balancer {
  /** The system's own gateway (`gateway`), then the extra one (`gateway-b`), as the balancer sees them. */
  backends: [Backend, Backend];
}

/**
 * Starts one more gateway process of a cluster system (`gateway-b` in its children, on a port
 * of its own) and puts both gateways behind a balancer once each one's /readyz answers, with
 * their readiness polled all along, as the endpoints controller does. `close()` stops the
 * polling and the balancer; the processes go with the system.
 */
export async function balanceGateways(system: TestSystem): Promise<BalancedGateways> {
  const portB = await freePort();
  await system.spawn!('gateway', { key: 'gateway-b', env: { PORT: String(portB) } });
  const ops = system.opsUrls!();
  const backends: [Backend, Backend] = [
    {
      name: 'a',
      port: Number(new URL(system.url).port),
      ops: ops.get('gateway')!,
      ready: false,
      connections: 0,
    },
    { name: 'b', port: portB, ops: ops.get('gateway-b')!, ready: false, connections: 0 },
  ];
  const readiness = followReadiness(backends);
  try {
    await waitFor(() => backends.every((b) => b.ready), 60_000);
    const balancer = await startBalancer(backends);
    return {
      url: balancer.url,
      backends,
      close() {
        readiness.stop();
        balancer.close();
      },
    };
  } catch (err) {
    readiness.stop();
    throw err;
  }
}

// A load balancer in front of several gateways, as a cluster's Service and ingress put one
// there: each new TCP connection (a websocket, or a keep-alive HTTP connection) goes to the
// next gateway whose /readyz answers 200, as endpoints follow readiness, and to the next one
// when the connection is refused (ingress-nginx's proxy_next_upstream).
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './system.ts';

/** A gateway as the balancer sees it: where to connect, where to ask readiness. */
export interface Backend {
  name: string;
  port: number;
  ops: string;
  ready: boolean;
  /** Connections the balancer has handed this gateway so far. */
  connections: number;
}

export interface Balancer {
  url: string;
  close(): void;
}

export async function startBalancer(backends: Backend[]): Promise<Balancer> {
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
export function followReadiness(backends: Backend[], everyMs = 100): { stop(): void } {
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

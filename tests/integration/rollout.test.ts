import http from 'node:http';
import type { ChildProcess } from 'node:child_process';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSignIn } from '../support/auth.ts';
import { freePort, startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

/** A gateway as a load balancer sees it: where to send requests, where to ask readiness. */
interface Backend {
  name: string;
  port: number;
  ops: string;
  ready: boolean;
  /** /readyz answers seen, in order (deduplicated). */
  readiness: string[];
}

/** One request on a new connection (as ingress-nginx without upstream keep-alive sends it). */
function send(
  port: number,
  method: string,
  path: string,
  token: string,
  body?: string,
): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', (err) => resolve({ error: `response: ${err.message}` }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(body);
  });
}

// The load is one user's as fast as the machine goes: the rate limits are not under test here.
const UNLIMITED = { RATE_LIMIT_USER_MAX: '100000000', RATE_LIMIT_IP_MAX: '100000000' };

// A rollout as Kubernetes does it, with the load balancer played here: requests go only to
// gateways whose /readyz answers 200 (as endpoints follow readiness); a connection refused
// before anything was sent goes to the other gateway (as ingress-nginx's proxy_next_upstream
// does). One of two gateways gets SIGTERM in the middle of a steady load of reads and writes.
describe.runIf(testMode === 'cluster')('a gateway rollout under load (cluster mode)', () => {
  let system: TestSystem;
  let token: string;
  let second: ChildProcess;
  const backends: Backend[] = [];
  let polling = true;

  beforeAll(async () => {
    system = await startSystem({
      processes: 'many',
      services: ['auth', 'group', 'transcript'],
      // What the chart's preStop delay does before SIGTERM, done by the process after it.
      env: { AUTH_LOCAL_ENABLED: 'true', SHUTDOWN_DELAY_MS: '3000', ...UNLIMITED },
    });
    token = (await localSignIn(system.url, 'Rollout Watcher')).cookie;
    const portB = await freePort();
    second = await system.spawn!('gateway', { key: 'gateway-b', env: { PORT: String(portB), ...UNLIMITED } });
    const ops = system.opsUrls!();
    backends.push(
      {
        name: 'a',
        port: Number(new URL(system.url).port),
        ops: ops.get('gateway')!,
        ready: false,
        readiness: [],
      },
      { name: 'b', port: portB, ops: ops.get('gateway-b')!, ready: false, readiness: [] },
    );
    // The endpoints controller: readiness polled all along.
    void (async () => {
      while (polling) {
        for (const b of backends) {
          const r = await fetch(`${b.ops}/readyz`)
            .then(async (res) => ({ ok: res.ok, status: ((await res.json()) as { status: string }).status }))
            .catch(() => ({ ok: false, status: 'unreachable' }));
          b.ready = r.ok;
          if (b.readiness.at(-1) !== r.status) b.readiness.push(r.status);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await waitFor(() => backends.every((b) => b.ready), 60_000);
  }, 180_000);

  afterAll(async () => {
    polling = false;
    await system?.stop();
  });

  it('answers every request (no 5xx, nothing lost) while one gateway drains and exits, and tells its sockets to reconnect', async () => {
    const [a, b] = backends as [Backend, Backend];
    const answered = { a: 0, b: 0 };
    const failures: string[] = [];
    let created = 0;
    let stop = false;
    let turn = 0;

    // A live socket on the gateway that will stop.
    const socket: Socket = io(`http://127.0.0.1:${a.port}`, {
      transports: ['websocket'],
      auth: { token },
      reconnection: false,
    });
    await new Promise<void>((resolve, reject) =>
      socket.once('connect', resolve).once('connect_error', reject),
    );
    const disconnected = new Promise<string>((resolve) => socket.once('disconnect', resolve));

    const one = async (worker: number) => {
      const write = worker === 0;
      const body = write ? JSON.stringify({ name: `Rollout table ${turn}` }) : undefined;
      for (let attempt = 0; attempt < 5; attempt++) {
        const ready = backends.filter((x) => x.ready);
        const target = ready[turn++ % Math.max(1, ready.length)] ?? b;
        const r = await send(target.port, write ? 'POST' : 'GET', '/api/groups', token, body);
        if ('error' in r) {
          // Refused before sending: nothing reached a service, the balancer tries the other one.
          if (r.error === 'ECONNREFUSED') continue;
          failures.push(`${target.name}: ${r.error}`);
          return;
        }
        if (r.status >= 500 || ![200, 201].includes(r.status)) failures.push(`${target.name}: ${r.status}`);
        else {
          answered[target.name as 'a' | 'b']++;
          if (write) created++;
        }
        return;
      }
      failures.push('no gateway took the request');
    };
    const workers = [0, 1, 2, 3].map(async (w) => {
      while (!stop) await one(w);
    });

    await waitFor(() => answered.a >= 20 && answered.b >= 20, 60_000);
    const aProcess = system.children.get('gateway')!;
    const exited = new Promise<number | null>((resolve) => aProcess.once('exit', (code) => resolve(code)));
    aProcess.kill('SIGTERM');
    expect(await exited).toBe(0);
    const bBefore = answered.b;
    await waitFor(() => answered.b >= bBefore + 20, 60_000);
    stop = true;
    await Promise.all(workers);

    expect(failures).toEqual([]);
    // The balancer saw the stopping gateway leave before its listener closed.
    const sinceReady = (x: Backend) => x.readiness.slice(x.readiness.indexOf('ready'));
    expect(sinceReady(a)).toEqual(['ready', 'stopping', 'unreachable']);
    expect(sinceReady(b)).toEqual(['ready']);
    // Every write that was answered is stored, once.
    let stored = 0;
    for (let next: string | undefined = `http://127.0.0.1:${b.port}/api/groups`; next;) {
      const res: Response = await fetch(next, { headers: { authorization: `Bearer ${token}` } });
      stored += ((await res.json()) as unknown[]).length;
      const link = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
      next = link ? new URL(link, next).toString() : undefined;
    }
    expect(stored).toBe(created);
    // The socket was closed as a transport, which a socket.io client answers by reconnecting.
    expect(await disconnected).toBe('transport close');
    expect(second.exitCode).toBeNull();
  }, 240_000);
});

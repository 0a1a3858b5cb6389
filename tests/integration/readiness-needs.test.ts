import { SERVICE_NEEDS } from '@chronicler/contracts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

/**
 * A TCP proxy to PostgreSQL that the test can cut and restore: the shared server keeps
 * running for every other test, while this system's processes lose it.
 */
class CuttableProxy {
  #server: net.Server;
  #sockets = new Set<net.Socket>();
  #cut = false;
  port = 0;

  constructor(target: { host: string; port: number }) {
    this.#server = net.createServer((client) => {
      if (this.#cut) return client.destroy();
      const upstream = net.connect(target);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as net.AddressInfo).port;
  }

  cut(): void {
    this.#cut = true;
    for (const s of this.#sockets) s.destroy();
  }

  restore(): void {
    this.#cut = false;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

// Each service's /readyz checks what its declaration (charts/chronicler/needs.json) says it
// needs: PostgreSQL down takes the schema owners out of their Services, never the gateway
// (the web app, the API's front door, live sockets) nor the voice bot.
describe.runIf(testMode === 'cluster')('readiness follows each service’s needs', () => {
  let system: TestSystem;
  let proxy: CuttableProxy;
  let db: { url: string; drop(): Promise<void> };
  const web = mkdtempSync(path.join(os.tmpdir(), 'chronicler-web-'));

  beforeAll(async () => {
    writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>Chronicler</title>');
    db = await createTestDatabase();
    const direct = new URL(db.url);
    proxy = new CuttableProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    await proxy.listen();
    const viaProxy = new URL(db.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    system = await startSystem({
      processes: 'many',
      services: ['transcript', 'voice-bot'],
      env: { DATABASE_URL: viaProxy.toString(), WEB_DIST: web },
    });
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
    await proxy?.close();
    await db?.drop();
    rmSync(web, { recursive: true, force: true });
  });

  const ready = async (service: string): Promise<number> => {
    const ops = system.opsUrls!().get(service);
    const res = await fetch(`${ops}/readyz`).catch(() => undefined);
    return res?.status ?? 0;
  };

  it('the declaration gives the gateway and the voice bot no schema', () => {
    expect(SERVICE_NEEDS.gateway.schema).toBe(false);
    expect(SERVICE_NEEDS['voice-bot'].schema).toBe(false);
    expect(SERVICE_NEEDS.transcript.schema).toBe(true);
  });

  it('keeps the gateway ready and the web app served while PostgreSQL is unreachable', async () => {
    await waitFor(
      async () => (await ready('transcript')) === 200 && (await ready('gateway')) === 200,
      60_000,
    );
    proxy.cut();
    // The schema owner notices and leaves its Service: the cut is real.
    await waitFor(async () => (await ready('transcript')) === 503, 60_000, 250);
    for (const service of ['gateway', 'voice-bot']) expect(await ready(service), service).toBe(200);
    const page = await fetch(`${system.url}/sessions/abc`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Chronicler</title>');
    const health = await fetch(`${system.url}/api/health`);
    // The API answers (200, or 503 naming what is down) rather than the gateway being gone.
    expect([200, 503]).toContain(health.status);
    proxy.restore();
    await waitFor(async () => (await ready('transcript')) === 200, 60_000, 250);
    expect(await ready('gateway')).toBe(200);
  }, 180_000);
});

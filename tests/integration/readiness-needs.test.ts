import { SERVICE_NEEDS, type Transcript } from '@chronicler/contracts';
import { createBus, createLogger, type Bus } from '@chronicler/kit';
import { busSink, readCrd3Turns, type ReplayTurn } from '@chronicler/voice-bot/replay';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { CRD3_DIR } from '../support/crd3.ts';
import { LiveViewer } from '../support/live-viewer.ts';
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

const OUTAGE_MS = 30_000;

// Each service's /readyz checks what its declaration (charts/chronicler/needs.json) says it
// needs: PostgreSQL down takes the schema owners out of their Services, never the gateway
// (the web app, the API's front door, live sockets) nor the voice bot or live-fanout. And the
// live path does not wait for PostgreSQL: a viewer keeps receiving the lines of a replayed
// session through a 30-second outage, and the transcript service stores every one of them
// once the database is back (they wait in the LIVE stream, acknowledged only when stored).
describe.runIf(testMode === 'cluster')('readiness follows each service’s needs', () => {
  let system: TestSystem;
  let proxy: CuttableProxy;
  let db: { url: string; drop(): Promise<void> };
  let bus: Bus;
  let turns: ReplayTurn[];
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
      services: ['auth', 'transcript', 'live-fanout', 'voice-bot'],
      env: { DATABASE_URL: viaProxy.toString(), WEB_DIST: web, AUTH_LOCAL_ENABLED: 'true' },
    });
    bus = await createBus({
      natsUrl: system.env.NATS_URL,
      prefix: system.env.BUS_PREFIX!,
      dataDir: system.env.DATA_DIR!,
      name: 'readiness-needs-test',
      logger: createLogger(null, { level: 'warn' }),
    });
    turns = (await readCrd3Turns(path.join(CRD3_DIR, 'C2E003.json'))).slice(0, 60);
  }, 180_000);

  afterAll(async () => {
    await bus?.close();
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

  it('the declaration gives the gateway, the voice bot and live-fanout no schema', () => {
    expect(SERVICE_NEEDS.gateway.schema).toBe(false);
    expect(SERVICE_NEEDS['voice-bot'].schema).toBe(false);
    expect(SERVICE_NEEDS['live-fanout'].schema).toBe(false);
    expect(SERVICE_NEEDS.transcript.schema).toBe(true);
  });

  it('through a 30 s PostgreSQL outage: the gateway stays ready, the web app loads, live lines keep reaching a viewer, and every one is stored after', async () => {
    await waitFor(
      async () => (await ready('transcript')) === 200 && (await ready('gateway')) === 200,
      60_000,
    );
    const alice = await localSignIn(system.url, 'alice');
    const token = alice.cookie;
    const sink = busSink(bus);
    const { transcriptId: id } = await sink.start({ owner_id: alice.body.user!.id, name: 'Outage' });
    // A browser learns of a session from the list, once its start is stored.
    await waitFor(
      async () => (await apiCall(system.url, 'GET', `/transcripts/${id}`, token)).status === 200,
      30_000,
    );
    const viewer = new LiveViewer(system.url, id, token);
    let n = 0;
    const say = async (): Promise<void> => {
      const t = turns[n % turns.length]!;
      n++;
      await sink.send(id, [
        {
          utterance_id: `u-${n}`,
          text: t.text,
          speaker_tag: 1,
          speaker_info: { displayName: t.speaker },
          start_seconds: n * 2,
          end_seconds: n * 2 + 1.5,
          final_index: n,
          is_final: true,
        },
      ]);
    };
    try {
      await waitFor(() => viewer.joined !== null, 30_000);
      await say();
      await viewer.untilLines(1);

      proxy.cut();
      const downUntil = Date.now() + OUTAGE_MS;
      // The schema owner notices and leaves its Service: the cut is real.
      await waitFor(async () => (await ready('transcript')) === 503, 60_000, 250);
      while (Date.now() < downUntil) {
        for (const service of ['gateway', 'voice-bot', 'live-fanout'])
          expect(await ready(service), service).toBe(200);
        const page = await fetch(`${system.url}/sessions/${id}`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<title>Chronicler</title>');
        const health = await fetch(`${system.url}/api/health`);
        // The API answers (200, or 503 naming what is down) rather than the gateway being gone.
        expect([200, 503]).toContain(health.status);
        // The signed-in user keeps the session (the gateway knows it; no sign-in page).
        const me = await apiCall<{ authenticated: boolean }>(system.url, 'GET', '/auth/user', token);
        expect(me.status).toBe(200);
        expect(me.body.authenticated).toBe(true);
        // A read that needs the database answers 503 with Retry-After, not an error page.
        const read = await fetch(`${system.url}/api/transcripts/${id}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(read.status, await read.text()).toBe(503);
        expect(Number(read.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        // Live lines keep coming, without PostgreSQL.
        await say();
        await viewer.untilLines(n, 30_000);
        await new Promise((r) => setTimeout(r, 2_000));
      }
      expect(n).toBeGreaterThanOrEqual(3);

      proxy.restore();
      await waitFor(async () => (await ready('transcript')) === 200, 60_000, 250);
      expect(await ready('gateway')).toBe(200);
      await say();
      await viewer.untilLines(n, 30_000);
      await sink.end(id, { final_count: n, interim_count: 0 });
      await viewer.untilEnded(60_000);
      expect(viewer.ordered().map((l) => l.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      expect(viewer.ended?.last_seq).toBe(n);

      // Nothing said during the outage was lost: the store holds every line, in order.
      const spoken = Array.from({ length: n }, (_, i) => turns[i % turns.length]!.text);
      await waitFor(async () => {
        const t = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${id}`, token);
        return t.status === 200 && t.body.status === 'ended';
      }, 60_000);
      const stored = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${id}`, token);
      expect(
        stored.body.content.split('\n').map((l) => l.replace(/^\[\d\d:\d\d:\d\d\] [^:]+: /, '')),
      ).toEqual(spoken);
    } finally {
      viewer.close();
    }
  }, 300_000);
});

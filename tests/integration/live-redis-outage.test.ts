// A gateway whose Redis goes away for 30 s stays up, keeps its viewers receiving lines (live
// lines do not cross Redis: live-fanout hands them to the gateways that hold the session's
// viewers), and takes Redis back by itself. The Redis here is one this test starts on its own
// port: the shared server of the machine is never stopped.
import { liveMsgId, liveSubject, type LiveUtterance } from '@chronicler/contracts';
import { busSink } from '@chronicler/voice-bot/replay';
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import {
  freePort,
  nodeEntry,
  repoRoot,
  startSystem,
  stopChild,
  testMode,
  type TestSystem,
  waitFor,
} from '../support/system.ts';

const OUTAGE_MS = 30_000;

function startRedis(port: number): ChildProcess {
  return spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
}
const redisUp = async (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = spawn('redis-cli', ['-p', String(port), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    probe.stdout.on('data', (d: Buffer) => (out += d.toString()));
    probe.once('exit', () => resolve(out.trim() === 'PONG'));
  });

describe.runIf(testMode === 'cluster')('a gateway through a Redis outage (cluster mode)', () => {
  let system: TestSystem;
  let redisPort: number;
  let redis: ChildProcess | null = null;
  let gateway: ChildProcess;
  let gatewayUrl: string;
  let owner: { token: string; id: string };
  const viewers: LiveViewer[] = [];

  beforeAll(async () => {
    redisPort = await freePort();
    redis = startRedis(redisPort);
    await waitFor(() => redisUp(redisPort), 20_000);
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    // A second gateway whose Redis (socket.io adapter, rate limits, caches) is this test's.
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    gateway = spawn(process.execPath, nodeEntry('services/gateway/src/main.ts'), {
      cwd: repoRoot,
      env: {
        ...system.env,
        PORT: String(port),
        OPS_PORT: String(await freePort()),
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitFor(
      async () => (await fetch(`${gatewayUrl}/api/health`).catch(() => null))?.status === 200,
      90_000,
    );
    const r = await localSignIn(system.url, 'gm');
    owner = { token: r.cookie, id: r.body.user!.id };
  }, 180_000);
  afterAll(async () => {
    for (const v of viewers) v.close();
    if (gateway) await stopChild(gateway);
    await system?.stop();
    if (redis) await stopChild(redis);
  });

  const publishFinal = (transcriptId: string, n: number) => {
    const u: LiveUtterance = {
      transcript_id: transcriptId,
      utterance_id: `u-${n}`,
      text: `Line number ${n}`,
      speaker_tag: 2,
      start_seconds: n,
      end_seconds: n + 0.5,
      final_index: n,
    };
    return system.platform!.bus.publishDurable(liveSubject.final(transcriptId), u, {
      msgId: liveMsgId.final(transcriptId, u.utterance_id),
    });
  };

  it('stays up with Redis down for 30 s, its viewers keep receiving lines, and a new viewer joins after', async () => {
    const { transcriptId: id } = await busSink(system.platform!.bus).start({
      owner_id: owner.id,
      name: 'Outage',
    });
    // A viewer opens a session it found listed, so once the transcript service stored its start:
    // a join that comes first is answered "Transcript not found" and, like the web client's, not
    // made again (with one core kept busy, 5 of 15 joins made at once came before the start).
    await waitFor(
      async () => (await apiCall(system.url, 'GET', `/transcripts/${id}`, owner.token)).status === 200,
      30_000,
    );
    const v = new LiveViewer(gatewayUrl, id, owner.token);
    viewers.push(v);
    await waitFor(() => v.joined !== null, 20_000).catch((err: Error) => {
      throw new Error(`${err.message}: connects ${v.connects}, errors ${JSON.stringify(v.errors)}`);
    });
    await publishFinal(id, 1);
    await v.untilLines(1);

    await stopChild(redis!);
    redis = null;
    const downUntil = Date.now() + OUTAGE_MS;
    let n = 1;
    while (Date.now() < downUntil) {
      await publishFinal(id, ++n);
      await v.untilLines(n);
      await new Promise((r) => setTimeout(r, 2_000));
    }
    // What asks the other gateways through Redis (viewer counts of a listing) answers without
    // them, from this gateway's own sockets.
    const active = await apiCall<{ transcript_id: string; connected_clients: number }[]>(
      gatewayUrl,
      'GET',
      '/transcripts/active',
      owner.token,
    );
    expect(active.status).toBe(200);
    expect(active.body.find((s) => s.transcript_id === id)?.connected_clients).toBe(1);
    expect(gateway.exitCode).toBeNull();
    expect(gateway.signalCode).toBeNull();

    redis = startRedis(redisPort);
    await waitFor(() => redisUp(redisPort), 20_000);
    await publishFinal(id, ++n);
    await v.untilLines(n);
    // A viewer that joins once Redis is back gets every line so far and the next ones.
    const late = new LiveViewer(gatewayUrl, id, owner.token);
    viewers.push(late);
    await late.untilLines(n, 30_000);
    await publishFinal(id, ++n);
    await Promise.all([v.untilLines(n), late.untilLines(n)]);
    expect(v.ordered().map((l) => l.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(gateway.exitCode).toBeNull();
    expect(gateway.signalCode).toBeNull();
  }, 180_000);
});

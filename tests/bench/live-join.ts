// Join storms: BENCH_JOIN_SOCKETS (1,000) socket.io viewers (the web client's behaviour:
// tests/support/live-viewer.ts) opened at once onto BENCH_JOIN_SESSIONS (10) live sessions, as
// a gateway restart's viewers come back. Measures, per socket, the time from opening it to its
// `joined` (handshake, authentication, the owner check and the catch-up read), p50/p99/max,
// and counts the joins that failed (an error answered, or no `joined` within a minute). Side by
// side in the same run: a bare socket.io server (no auth, no bus: a join only enters the room)
// with the very same viewers, quiet and with one core kept busy. Also the transcript service's
// memory before and after the storms (each join's owner check is one of its reads, shared per
// session and place by the gateway).
//
// Chronicler runs in cluster mode, one process per service on NATS, PostgreSQL and Redis;
// skipped without them. Fails (exit code 1) when a join failed.
import { liveMsgId, liveSubject, LiveSocketEvents, type LiveUtterance } from '@chronicler/contracts';
import { createBus, createLogger } from '@chronicler/kit';
import { busSink } from '@chronicler/voice-bot/replay';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { localSignIn } from '../support/auth.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { startSystem, waitFor } from '../support/system.ts';
import { busy, reachable, startBareServer } from './live.ts';
import { percentile, printTable } from './report.ts';

const int = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  return Number.isFinite(v) && v >= 1 ? Math.floor(v) : fallback;
};
const SOCKETS = int('BENCH_JOIN_SOCKETS', 1_000);
const SESSIONS = int('BENCH_JOIN_SESSIONS', 10);
const JOIN_WAIT_MS = 60_000;

interface StormResult {
  run: string;
  sockets: number;
  joined: number;
  failed: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** From the first socket opened to the last join answered. */
  allJoinedMs: number;
  firstError: string;
}

/** Opens every socket at once, waits for each to join or fail, closes them all. */
async function storm(run: string, url: string, token: string, sessionIds: string[]): Promise<StormResult> {
  const t0 = performance.now();
  const joinedAt: number[] = [];
  const viewers = Array.from({ length: SOCKETS }, (_, i) => {
    const v = new LiveViewer(url, sessionIds[i % sessionIds.length]!, token);
    v.socket.once(LiveSocketEvents.joined, () => (joinedAt[i] = performance.now() - t0));
    return v;
  });
  try {
    await waitFor(
      () => viewers.every((v) => v.joined !== null || v.errors.length > 0),
      JOIN_WAIT_MS,
      50,
    ).catch(() => undefined);
    const ok = viewers.filter((v) => v.joined !== null && v.errors.length === 0);
    const times = joinedAt.filter((t) => t !== undefined).sort((a, b) => a - b);
    const firstError = viewers.find((v) => v.errors.length > 0)?.errors[0];
    return {
      run,
      sockets: SOCKETS,
      joined: ok.length,
      failed: SOCKETS - ok.length,
      p50Ms: percentile(times, 50),
      p99Ms: percentile(times, 99),
      maxMs: times.at(-1) ?? Number.NaN,
      allJoinedMs: times.at(-1) ?? Number.NaN,
      firstError: firstError === undefined ? '' : JSON.stringify(firstError).slice(0, 80),
    };
  } finally {
    for (const v of viewers) v.close();
  }
}

/** Resident memory of a process (MB), from /proc. */
function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

export async function benchLiveJoin(): Promise<void> {
  const urls = {
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
  const down: string[] = [];
  if (!(await reachable(urls.NATS_URL, 4222))) down.push(`NATS_URL ${urls.NATS_URL}`);
  if (!(await reachable(urls.DATABASE_URL, 5432))) down.push(`DATABASE_URL ${urls.DATABASE_URL}`);
  if (!(await reachable(urls.REDIS_URL, 6379))) down.push(`REDIS_URL ${urls.REDIS_URL}`);
  if (down.length) {
    console.log(
      `\nlive-join: skipped, cluster mode needs NATS, PostgreSQL and Redis; unreachable: ${down.join(', ')}`,
    );
    return;
  }
  Object.assign(process.env, urls);
  console.log(
    `\nlive-join: ${SOCKETS} sockets opened at once onto ${SESSIONS} live sessions; ${os.cpus().length} cores`,
  );
  const results: StormResult[] = [];

  // 1. The bare socket.io server, before the cluster starts.
  const bare = await startBareServer();
  try {
    const ids = Array.from({ length: SESSIONS }, () => randomUUID());
    results.push(await storm('bare socket.io', bare.url, 'bare', ids));
    results.push(await busy(() => storm('bare socket.io, one core kept busy', bare.url, 'bare', ids)));
  } finally {
    await bare.stop();
  }

  // 2. Chronicler in cluster mode, one process per service.
  const system = await startSystem({
    processes: 'many',
    mode: 'cluster',
    env: { AUTH_LOCAL_ENABLED: 'true', LOG_LEVEL: 'warn' },
  });
  const bus = await createBus({
    natsUrl: system.env.NATS_URL,
    prefix: system.env.BUS_PREFIX!,
    name: 'bench-live-join',
    logger: createLogger(null, { level: 'warn' }),
  });
  const memory: { when: string; transcriptMb: number; liveFanoutMb: number }[] = [];
  const sample = (when: string) =>
    memory.push({
      when,
      transcriptMb: rssMb(system.children.get('transcript')?.pid),
      liveFanoutMb: rssMb(system.children.get('live-fanout')?.pid),
    });
  try {
    const { cookie: token, body } = await localSignIn(system.url, 'bench-live-join');
    const sink = busSink(bus);
    const ids: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const { transcriptId } = await sink.start({ owner_id: body.user!.id, name: `Join storm ${i + 1}` });
      ids.push(transcriptId);
    }
    // Each session has a few stored lines, so a join has something to catch up.
    for (const id of ids) {
      for (let n = 1; n <= 20; n++) {
        const u: LiveUtterance = {
          transcript_id: id,
          utterance_id: `u-${n}`,
          text: `Line number ${n} of a session being watched`,
          speaker_tag: 1 + (n % 3),
          start_seconds: n,
          end_seconds: n + 0.5,
          final_index: n,
        };
        await bus.publishDurable(liveSubject.final(id), u, { msgId: liveMsgId.final(id, u.utterance_id) });
      }
    }
    // Viewers open sessions they found listed.
    await waitFor(
      async () => {
        const res = await fetch(`${system.url}/api/transcripts?limit=100`, {
          headers: { authorization: `Bearer ${token}` },
        });
        if (!res.ok) return false;
        const list = (await res.json()) as { id: string }[];
        return ids.every((id) => list.some((t) => t.id === id));
      },
      60_000,
      250,
    );
    sample('before');
    results.push(await storm('chronicler cluster', system.url, token, ids));
    sample('after the quiet storm');
    results.push(await busy(() => storm('chronicler cluster, one core kept busy', system.url, token, ids)));
    sample('after the busy storm');
  } finally {
    await bus.close();
    await system.stop();
  }

  printTable('live-join: sockets opened at once until each is joined (ms from opening)', results);
  printTable('live-join: resident memory (MB)', memory);
  const cluster = results.filter((r) => r.run.startsWith('chronicler'));
  const bareQuiet = results[0]!;
  const failed = cluster.reduce((n, r) => n + r.failed, 0);
  console.log(
    `\nlive-join: ${failed} failed joins of ${cluster.length * SOCKETS}; cluster p99 ${cluster[0]!.p99Ms.toFixed(0)} ms ` +
      `(${(cluster[0]!.p99Ms / bareQuiet.p99Ms).toFixed(1)}x the bare server's ${bareQuiet.p99Ms.toFixed(0)} ms)`,
  );
  if (failed > 0) process.exitCode = 1;
}

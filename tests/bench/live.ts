// Live sessions end to end, in cluster mode with one process per service on NATS,
// PostgreSQL and Redis: BENCH_LIVE_SESSIONS (200) replayed CRD3 sessions that end together and
// BENCH_LIVE_FLOWING (50) that go on speaking meanwhile, published onto the bus exactly as the
// pipeline does (busSink), each watched by BENCH_LIVE_VIEWERS (10) socket.io viewers (the web
// client's behaviour: tests/support/live-viewer.ts) = 2500 websocket connections. The viewers
// live in processes of their own (live-viewers.ts; real viewers are separate browsers): the
// ending sessions' in two, the flowing sessions' in a third. Measures the latency from just
// before a final is published to each viewer's receipt of its final_update /
// user_final_update (p50, p99, max; the hosts' clocks put on this process's by the shortest
// of 20 pings), and checks that every viewer ends holding exactly its session's lines 1..n,
// none twice. Side by side in the same run: a bare socket.io server (no adapter, no bus) in a
// child process, driven by the very same replay schedule over IPC, to the same viewers. Also:
// the gateway's memory per connected socket (its /metrics before and after the viewers
// joined), the CPU each process used, and where the time goes hop by hop (this process also
// listens to live.*.line and fanout.* on the bus).
//
// Budgets (#43): p99 publish -> browser socket under 30 ms, and under 100 ms with one core kept
// busy, nothing lost or repeated, on a 2-core machine. Per phase (#46: "200 live sessions
// ending within the same second do not raise the live p99 of the lines still flowing"): the
// 200 ending sessions speak their lines, wait until the last of them has, and publish their
// ends together; the flowing sessions' lines after that burst (BENCH_LIVE_AFTER_TURNS more
// each, while the ends' work runs: storing, usage, summaries) keep the p99 those same
// sessions had before it. The ends' p99 is also ranked among the steady part's windows of as
// many finals (like against like: a small sample's p99 is its few slowest).
// BENCH_LIVE_DUMP=<file> writes each final's hop times.
//
// Needs NATS_URL, DATABASE_URL and REDIS_URL (defaults: the local servers); skipped without.
import {
  LiveSocketEvents,
  liveJoinRpc,
  liveRoom,
  type FanoutDelivery,
  type JoinedTranscription,
  type LiveTranscriptionEvent,
  type SessionEndEvent,
} from '@chronicler/contracts';
import { call, createBus, createLogger, ServiceError, type Bus } from '@chronicler/kit';
import { busSink, replaySession, type LiveSink, type ReplayTurn } from '@chronicler/voice-bot/replay';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { localSignIn } from '../support/auth.ts';
import { CRD3_EPISODES, crd3Turns } from '../support/crd3.ts';
import { freePort, repoRoot, startSystem, stopChild, waitFor, type TestSystem } from '../support/system.ts';
import {
  endSpread,
  phaseFigures,
  steadyWindows,
  type EndSpread,
  type PhaseFigures,
  type SteadyWindows,
} from './live-phases.ts';
import { finalKey as key, ViewerHost, type HostReport, type ViewerChecks } from './live-viewers.ts';
import { percentile, printTable } from './report.ts';

const int = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  return Number.isFinite(v) && v >= 0 ? Math.floor(v) : fallback;
};
const SESSIONS = int('BENCH_LIVE_SESSIONS', 200);
const VIEWERS = int('BENCH_LIVE_VIEWERS', 10);
/** Finals per session; with WORDS words a turn lasts WORDS / 2.5 s (replay.ts's 150 words a minute). */
const TURNS = int('BENCH_LIVE_TURNS', 24);
const WORDS = Math.max(1, int('BENCH_LIVE_WORDS', 6));
/** Interims before each final, as the pipeline sends them (replaySession's default is 2). */
const INTERIMS = int('BENCH_LIVE_INTERIMS', 2);
const TURN_MS = Math.max(0.6, WORDS / 2.5) * 1000;
/**
 * Sessions still flowing while the SESSIONS others end, and how many more lines they speak
 * after the last of those (at one every TURN_MS: the window in which the ends' work is done).
 */
const FLOWING = int('BENCH_LIVE_FLOWING', 50);
const AFTER_TURNS = int('BENCH_LIVE_AFTER_TURNS', 10);
/** Processes holding the ending sessions' viewers (the flowing sessions' have one of their own). */
const ENDING_HOSTS = 2;
/** Viewers connected at once while the audience gathers. */
const CONNECT_BATCH = 100;

const P99_BUDGET_MS = 30;
const KB = 1024;
const MB = 1024 * 1024;

// --- The bare socket.io server (this file, run as a child process) ------------------------

type BareMessage =
  | { type: 'emit'; room: string; event: string; payload: unknown }
  | { type: 'memory' }
  | { type: 'listening'; port: number }
  | { type: 'memory-report'; rss: number; heapUsed: number };

interface BareSocket {
  on(event: string, listener: (raw: unknown) => void): void;
  emit(event: string, payload: unknown): void;
  join(room: string): unknown;
}
interface BareIo {
  on(event: 'connection', listener: (socket: BareSocket) => void): void;
  to(room: string): { emit(event: string, payload: unknown): void };
}

/**
 * A plain socket.io server: websocket transport, the default in-memory adapter, no auth, a
 * join puts the socket in the room; it emits what the parent sends over IPC. socket.io is
 * the gateway's dependency (the tests package has only the client), so it is loaded from there.
 */
async function bareServerMain(): Promise<void> {
  const require = createRequire(path.join(repoRoot, 'services/gateway/package.json'));
  const { Server } = require('socket.io') as {
    Server: new (srv: http.Server, opts: Record<string, unknown>) => BareIo;
  };
  const server = http.createServer();
  const io = new Server(server, { path: '/socket.io', serveClient: false, transports: ['websocket'] });
  const startedAt = new Date().toISOString();
  io.on('connection', (socket) => {
    socket.on(LiveSocketEvents.join, (raw) => {
      const transcriptId = (raw as { transcriptId: string }).transcriptId;
      void socket.join(liveRoom(transcriptId));
      const joined: JoinedTranscription = {
        transcript_id: transcriptId,
        session_start_time: startedAt,
        status: 'active',
        last_seq: 0,
      };
      socket.emit(LiveSocketEvents.joined, joined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const send = (m: BareMessage) => process.send?.(m);
  process.on('message', (m: BareMessage) => {
    if (m.type === 'emit') io.to(m.room).emit(m.event, m.payload);
    else if (m.type === 'memory') {
      const { rss, heapUsed } = process.memoryUsage();
      send({ type: 'memory-report', rss, heapUsed });
    }
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'listening', port: (server.address() as net.AddressInfo).port });
}

if (process.env.BENCH_LIVE_BARE_SERVER === '1') {
  bareServerMain().catch((err: unknown) => {
    console.error('bare socket.io server failed', err);
    process.exit(1);
  });
}

export async function startBareServer(): Promise<{
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    cwd: repoRoot,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_LIVE_BARE_SERVER: '1' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare socket.io server exited (${code})`)));
    child.on('message', (m: BareMessage) => {
      if (m.type === 'listening') resolve(m.port);
    });
  });
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    stop: () => stopChild(child),
  };
}

/** What the pipeline would publish, handed to the bare server's rooms shaped as the gateway emits it. */
function bareSink(child: ChildProcess): LiveSink {
  const starts = new Map<string, string>();
  const emit = (transcriptId: string, event: string, payload: unknown) =>
    new Promise<void>((resolve, reject) =>
      child.send(
        { type: 'emit', room: liveRoom(transcriptId), event, payload } satisfies BareMessage,
        (err) => (err ? reject(err) : resolve()),
      ),
    );
  return {
    async start() {
      const transcriptId = randomUUID();
      const startedAt = new Date().toISOString();
      starts.set(transcriptId, startedAt);
      return { transcriptId, startedAt };
    },
    async send(transcriptId, utterances) {
      const start = starts.get(transcriptId) ?? '';
      for (const { is_final: isFinal, ...u } of utterances) {
        const payload: LiveTranscriptionEvent = {
          transcript_id: transcriptId,
          type: isFinal ? 'final' : 'interim',
          utterance_id: u.utterance_id,
          text: u.text,
          speaker_tag: u.speaker_tag,
          ...(u.speaker_info ? { speaker_info: u.speaker_info } : {}),
          timestamp: new Date(Date.parse(start) + u.start_seconds * 1000).toISOString(),
          session_start_time: start,
          start_seconds: u.start_seconds,
          end_seconds: u.end_seconds,
          ...(isFinal ? { seq: u.final_index } : {}),
        };
        const event = u.speaker_info
          ? isFinal
            ? LiveSocketEvents.userFinal
            : LiveSocketEvents.userInterim
          : isFinal
            ? LiveSocketEvents.final
            : LiveSocketEvents.interim;
        await emit(transcriptId, event, payload);
      }
    },
    async end(transcriptId, e) {
      const end: SessionEndEvent = {
        transcript_id: transcriptId,
        name: 'Live Transcription',
        summary: '',
        llm_summary: '',
        ended_at: new Date().toISOString(),
        last_seq: e.final_count,
      };
      await emit(transcriptId, LiveSocketEvents.sessionEnd, end);
    },
    async close() {},
  };
}

// --- Measuring ---------------------------------------------------------------------------

/** Turns of at least WORDS words from every CRD3 episode, cut to WORDS words. */
function turnPool(): ReplayTurn[] {
  const pool: ReplayTurn[] = [];
  for (const episode of CRD3_EPISODES) {
    for (const t of crd3Turns(episode)) {
      const words = t.text.split(' ').filter(Boolean);
      if (words.length < WORDS) continue;
      pool.push({
        speaker: (t.speaker.trim() || 'Unknown').slice(0, 60),
        text: words.slice(0, WORDS).join(' '),
      });
    }
  }
  return pool;
}

/** CPU ticks (user + system) of a process from /proc; 0 when it is gone. */
function procTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Processes by name (comm) for the servers the cluster runs on: NATS, PostgreSQL, Redis. */
function pidsNamed(names: string[]): Map<string, number[]> {
  const found = new Map<string, number[]>(names.map((n) => [n, []]));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      for (const n of names) if (comm.startsWith(n)) found.get(n)!.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const machineTicks = (): { busy: number; total: number } => {
  let busy = 0;
  let total = 0;
  for (const c of os.cpus()) {
    const t = c.times;
    busy += t.user + t.nice + t.sys + t.irq;
    total += t.user + t.nice + t.sys + t.irq + t.idle;
  }
  return { busy, total };
};

/**
 * CPU use of process groups between start() and stop(), in % of one core. The groups are
 * looked up at both ends (PostgreSQL starts a backend per connection), per process id; a
 * `quick` start or stop (the boundary between phases, in the middle of a burst) reuses the
 * groups last looked up by this meter or the one it came from, and only reads their ticks.
 */
function cpuMeter(groups: () => Map<string, number[]>, known: { groups?: Map<string, number[]> } = {}) {
  const lookUp = (quick: boolean) => {
    if (!quick || !known.groups) known.groups = groups();
    return known.groups;
  };
  const ticks = (quick: boolean) =>
    new Map([...lookUp(quick)].map(([name, pids]) => [name, new Map(pids.map((p) => [p, procTicks(p)]))]));
  let t0 = 0;
  let before = new Map<string, Map<number, number>>();
  let machine0 = machineTicks();
  return {
    /** A meter of its own over the same processes (e.g. for one phase of a run). */
    another: () => cpuMeter(groups, known),
    start(quick = false) {
      t0 = performance.now();
      before = ticks(quick);
      machine0 = machineTicks();
    },
    stop(quick = false): {
      rows: { process: string; cpuPercentOfOneCore: number }[];
      machineBusyPercent: number;
      othersPercentOfOneCore: number;
    } {
      const seconds = (performance.now() - t0) / 1000;
      const after = ticks(quick);
      const machine = machineTicks();
      const rows = [...after]
        .map(([process, pids]) => {
          let used = 0;
          for (const [pid, t] of pids) used += t > 0 ? t - (before.get(process)?.get(pid) ?? 0) : 0;
          // /proc counts in clock ticks, 100 a second on Linux.
          return { process, cpuPercentOfOneCore: (used / 100 / seconds) * 100 };
        })
        .sort((a, b) => b.cpuPercentOfOneCore - a.cpuPercentOfOneCore);
      const machineBusyPercent = ((machine.busy - machine0.busy) / (machine.total - machine0.total)) * 100;
      const ours = rows.reduce((sum, r) => sum + r.cpuPercentOfOneCore, 0);
      // The machine may be shared: what ran beside this bench took CPU from it.
      const others = Math.max(0, machineBusyPercent * os.cpus().length - ours);
      return { rows, machineBusyPercent, othersPercentOfOneCore: others };
    },
  };
}

interface Mem {
  rss: number;
  heapUsed: number;
}

/** The median of `n` samples `everyMs` apart (memory moves with garbage collection). */
async function medianMem(n: number, everyMs: number, sample: () => Promise<Mem>): Promise<Mem> {
  const samples: Mem[] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0) await sleep(everyMs);
    samples.push(await sample());
  }
  const med = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  return { rss: med(samples.map((s) => s.rss)), heapUsed: med(samples.map((s) => s.heapUsed)) };
}

async function metricsOf(opsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${opsUrl}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^([a-zA-Z_:][\w:]*)(?:\{[^}]*\})? (\S+)$/gm)) {
    if (!out.has(m[1]!)) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

interface RunOptions {
  label: string;
  url: string;
  token: string;
  owner: string;
  sink: LiveSink;
  pool: ReplayTurn[];
  /** Resolves once the server knows the session (a join finds it). */
  sessionKnown(transcriptId: string): Promise<void>;
  /** Server memory now. */
  serverMemory(): Promise<Mem>;
  cpu: ReturnType<typeof cpuMeter>;
}

interface RunResult extends ViewerChecks {
  label: string;
  sessions: number;
  viewers: number;
  finals: number;
  pairs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  finalsPerSec: number;
  latencies: number[];
  publishedAt: Map<string, number>;
  viewerReceipts: { key: string; at: number }[];
  ackMs: number[];
  server: { before: Mem; after: Mem; perSocketRss: number; perSocketHeap: number };
  clientPerSocketHeap: number;
  /** The bench process's (publisher's) event loop, and the worst of the viewer hosts'. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  hostLoopDelayP99Ms: number;
  /** Every final, split at the burst of ends. */
  phases: PhaseFigures[];
  /** The sessions still flowing (the lines the ends must not slow), split the same way. */
  flowingPhases: PhaseFigures[];
  /** The ends' p99 among the steady windows of the flowing sessions, of as many finals. */
  steadyWindows: SteadyWindows;
  ends: EndSpread;
  /** When the first session's end was published (this process's clock). */
  firstEndAt: number;
  /** Joins the viewers sent after their first, and of those because an end came before its lines. */
  rejoins: number;
  endRejoins: number;
  cpu: ReturnType<ReturnType<typeof cpuMeter>['stop']>;
  /**
   * The same by phase: from the gate to the burst of ends, and from then until every viewer
   * saw its session end (the ends' own work: storing, summaries, codex, leaving rooms).
   */
  cpuByPhase: {
    steady: ReturnType<ReturnType<typeof cpuMeter>['stop']>;
    ends: ReturnType<ReturnType<typeof cpuMeter>['stop']>;
  };
  seconds: number;
}

/** The viewer hosts' process ids while a run has them (the CPU meters read them). */
const viewerPids: number[] = [];

/**
 * One measured run: starts the sessions held at a gate, waits until the server knows them,
 * connects and joins every viewer in its host process (memory before and after), then opens
 * the gate (each session released at its own moment within one turn, so finals come evenly).
 * The SESSIONS ending sessions speak TURNS lines and then wait until all of them have, so
 * that their ends are published together (within milliseconds); the FLOWING sessions speak
 * AFTER_TURNS more lines, the lines that flow while the others end. Waits until every viewer
 * has seen its session end.
 */
async function runLive(o: RunOptions): Promise<RunResult> {
  let openGate!: () => void;
  const gate = new Promise<void>((r) => (openGate = r));
  let openEnds!: () => void;
  const endsGate = new Promise<void>((r) => (openEnds = r));
  let atTheirEnd = 0;
  const releasedAt = new Map<string, number>();
  const publishedAt = new Map<string, number>();
  const ackMs: number[] = [];
  const endsAt: number[] = [];
  const burstAt: number[] = [];
  const steadyCpu = o.cpu.another();
  const endsCpu = o.cpu.another();
  let steadyCpuUse: RunResult['cpuByPhase']['steady'] | undefined;
  const texts = new Map<string, string[]>();
  const flowing = new Set<string>();
  const ids: Promise<string>[] = [];
  const replays: Promise<unknown>[] = [];

  for (let i = 0; i < SESSIONS + FLOWING; i++) {
    const ending = i < SESSIONS;
    const count = ending ? TURNS : TURNS + AFTER_TURNS;
    const turns = Array.from(
      { length: count },
      (_, k) => o.pool[(i * (TURNS + AFTER_TURNS) + k) % o.pool.length]!,
    );
    // Both kinds spread evenly over one turn.
    const delayMs = ending ? (i / SESSIONS) * TURN_MS : ((i - SESSIONS + 0.5) / FLOWING) * TURN_MS;
    let started!: (id: string) => void;
    ids.push(new Promise<string>((r) => (started = r)));
    // Held at the gate until the audience is in: the first thing a session sends after its
    // start waits there (an interim, or with BENCH_LIVE_INTERIMS=0 the first final, whose
    // time then counts from its release).
    const sink: LiveSink = {
      start: async (s) => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await o.sink.start(s);
          } catch (err) {
            if (attempt >= 20) throw err;
            await sleep(500);
          }
        }
      },
      send: async (transcriptId, utterances) => {
        if (!releasedAt.has(transcriptId)) {
          await gate;
          await sleep(delayMs);
          releasedAt.set(transcriptId, performance.now());
        }
        return o.sink.send(transcriptId, utterances);
      },
      end: async (transcriptId, e) => {
        if (ending) {
          if (++atTheirEnd === SESSIONS) openEnds();
          await endsGate;
        }
        if (endsAt.length === 0) {
          steadyCpuUse = steadyCpu.stop(true);
          endsCpu.start(true);
        }
        endsAt.push(performance.now());
        if (ending) burstAt.push(performance.now());
        return o.sink.end(transcriptId, e);
      },
      close: () => o.sink.close(),
    };
    replays.push(
      replaySession(sink, turns, {
        owner: o.owner,
        name: `Bench live ${i + 1}`,
        interimsPerTurn: INTERIMS,
        onStart: (id) => {
          texts.set(
            id,
            turns.map((t) => t.text),
          );
          if (!ending) flowing.add(id);
          started(id);
        },
        onFinal: ({ transcriptId, utteranceId, publishedAt: at }) => {
          const from = Math.max(at, releasedAt.get(transcriptId) ?? at);
          if (from === at) ackMs.push(performance.now() - at);
          publishedAt.set(key(transcriptId, utteranceId), from);
        },
      }),
    );
  }
  const transcriptIds = await Promise.all(ids);
  await Promise.all(transcriptIds.map((id) => o.sessionKnown(id)));

  // The viewers: the ending sessions' over ENDING_HOSTS processes, the flowing ones' in one more.
  const serverBefore = await medianMem(5, 1000, o.serverMemory);
  const hostsOf = [
    ...Array.from({ length: ENDING_HOSTS }, (_, h) =>
      transcriptIds.slice(0, SESSIONS).filter((_, i) => i % ENDING_HOSTS === h),
    ),
    transcriptIds.slice(SESSIONS),
  ].filter((s) => s.length > 0);
  const hosts = await Promise.all(hostsOf.map(() => ViewerHost.start()));
  viewerPids.splice(0, viewerPids.length, ...hosts.map((h) => h.pid));
  try {
    const joined = await Promise.all(
      hosts.map((h, n) =>
        h.connect({
          url: o.url,
          token: o.token,
          viewers: VIEWERS,
          batch: CONNECT_BATCH,
          sessions: hostsOf[n]!.map((transcriptId) => ({ transcriptId, texts: texts.get(transcriptId)! })),
        }),
      ),
    );
    await sleep(3000);
    const serverAfter = await medianMem(5, 1000, o.serverMemory);
    // The clocks once more, right before measuring.
    await Promise.all(hosts.map((h) => h.syncClock()));

    // The replay.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    for (const h of hosts) h.start();
    o.cpu.start();
    steadyCpu.start();
    const t0 = performance.now();
    openGate();
    await Promise.all(replays);
    const reports = await Promise.all(hosts.map((h) => h.finish(60_000)));
    const seconds = (performance.now() - t0) / 1000;
    const cpu = o.cpu.stop();
    const cpuByPhase = { steady: steadyCpuUse ?? steadyCpu.stop(), ends: endsCpu.stop() };
    loop.disable();

    const sum = (f: (r: HostReport) => number) => reports.reduce((n, r) => n + f(r), 0);
    const receipts = reports.flatMap((r) => r.receipts.map(([k, at]) => ({ key: k, at })));
    const latencies: number[] = [];
    for (const r of receipts) {
      const from = publishedAt.get(r.key);
      if (from !== undefined) latencies.push(r.at - from);
    }
    latencies.sort((a, b) => a - b);
    const published = [...publishedAt.values()];
    const spanS = (Math.max(...published) - Math.min(...published)) / 1000;
    const sockets = joined.reduce((n, j) => n + j.sockets, 0);
    const isFlowing = (k: string) => flowing.has(k.slice(0, k.indexOf('|')));
    return {
      label: o.label,
      sessions: transcriptIds.length,
      viewers: sockets,
      finals: publishedAt.size,
      pairs: latencies.length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      maxMs: latencies.at(-1) ?? Number.NaN,
      finalsPerSec: publishedAt.size / spanS,
      lost: sum((r) => r.lost),
      duplicated: sum((r) => r.duplicated),
      wrongText: sum((r) => r.wrongText),
      caughtUpByJoin: sum((r) => r.caughtUpByJoin),
      notEnded: sum((r) => r.notEnded),
      connectErrors: sum((r) => r.connectErrors),
      latencies,
      publishedAt,
      viewerReceipts: receipts,
      ackMs: ackMs.sort((a, b) => a - b),
      server: {
        before: serverBefore,
        after: serverAfter,
        perSocketRss: (serverAfter.rss - serverBefore.rss) / sockets,
        perSocketHeap: (serverAfter.heapUsed - serverBefore.heapUsed) / sockets,
      },
      clientPerSocketHeap: joined.reduce((n, j) => n + j.heapAfter - j.heapBefore, 0) / sockets,
      loopDelayP99Ms: loop.percentile(99) / 1e6,
      loopDelayMaxMs: loop.max / 1e6,
      hostLoopDelayP99Ms: Math.max(...reports.map((r) => r.loopDelayP99Ms)),
      phases: phaseFigures(publishedAt, receipts, endsAt),
      flowingPhases: phaseFigures(publishedAt, receipts, endsAt, isFlowing),
      steadyWindows: steadyWindows(publishedAt, receipts, endsAt, isFlowing),
      ends: endSpread(burstAt),
      firstEndAt: Math.min(...endsAt),
      rejoins: sum((r) => r.rejoins),
      endRejoins: sum((r) => r.endRejoins),
      cpu,
      cpuByPhase,
      seconds,
    };
  } finally {
    await Promise.all(hosts.map((h) => h.stop()));
    viewerPids.length = 0;
  }
}

/**
 * When each line of a run was stored (transcript_lines.stored_at, the storing transaction's
 * start), on this process's clock: how long the lines of the sessions still going waited to be
 * stored while the others' ends were closed.
 */
async function readStoredAt(dbUrl: string, r: RunResult, into: Map<string, number>): Promise<void> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const ids = [...new Set([...r.publishedAt.keys()].map((k) => k.slice(0, k.indexOf('|'))))];
    const found = await client.query<{ table_schema: string }>(
      `select table_schema from information_schema.tables where table_name = 'transcript_lines'`,
    );
    const schema = found.rows[0]?.table_schema;
    if (!schema) return;
    const { rows } = await client.query<{ transcript_id: string; utterance_id: string; at: string }>(
      `select transcript_id, utterance_id, extract(epoch from stored_at) * 1000 as at
         from ${client.escapeIdentifier(schema)}.transcript_lines where transcript_id = any($1::uuid[])`,
      [ids],
    );
    for (const row of rows) {
      into.set(key(row.transcript_id, row.utterance_id), Number(row.at) - performance.timeOrigin);
    }
  } finally {
    await client.end();
  }
}

export async function reachable(url: string, fallbackPort: number): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = net.connect({ host: u.hostname || '127.0.0.1', port: Number(u.port || fallbackPort) });
    s.setTimeout(2000);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(false));
  });
}

// --- The bench ---------------------------------------------------------------------------

const BUSY_P99_BUDGET_MS = 100;

/**
 * A CPU-bound process that keeps one core busy (a build, another service on the machine)
 * while a run measures; the bench starts it and stops it, and it ends itself after 15
 * minutes in case the bench dies first.
 */
function startBurner(): { stop(): Promise<void> } {
  const child = spawn(
    process.execPath,
    ['-e', 'const end = Date.now() + 15 * 60_000; while (Date.now() < end) {}'],
    { stdio: 'ignore' },
  );
  return {
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
    },
  };
}

/**
 * Waits until every session of the owner has ended and has its automatic summary (or failed
 * to get one); answers how long that took, or that it timed out.
 */
async function summariesSettled(url: string, token: string, timeoutMs: number): Promise<string> {
  const t0 = performance.now();
  for (;;) {
    const res = await fetch(new URL('/api/transcripts?limit=500', url), {
      headers: { authorization: `Bearer ${token}` },
    }).catch(() => undefined);
    const items = res?.ok ? ((await res.json()) as { status: string; summary_status: string }[]) : null;
    const busyOnes = items?.filter(
      (t) => t.status !== 'ended' || t.summary_status === 'none' || t.summary_status === 'generating',
    );
    if (busyOnes && busyOnes.length === 0) return `${((performance.now() - t0) / 1000).toFixed(1)} s`;
    if (performance.now() - t0 > timeoutMs) return `timed out (${busyOnes?.length ?? '?'} still busy)`;
    await sleep(1000);
  }
}

/** Runs `run` with one core kept busy by a burner. */
export async function busy<T>(run: () => Promise<T>): Promise<T> {
  const burner = startBurner();
  try {
    // Let it reach full speed before measuring.
    await sleep(500);
    return await run();
  } finally {
    await burner.stop();
  }
}

export async function benchLive(): Promise<void> {
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
      `\nlive: skipped, cluster mode needs NATS, PostgreSQL and Redis; unreachable: ${down.join(', ')}`,
    );
    return;
  }
  // startSystem reads them from the environment (and makes a throwaway database on that server).
  Object.assign(process.env, urls);

  const pool = turnPool();
  const sockets = (SESSIONS + FLOWING) * VIEWERS;
  console.log(
    `\nlive: ${SESSIONS} sessions ending together + ${FLOWING} flowing on, x ${VIEWERS} viewers = ` +
      `${sockets} sockets, ${TURNS} finals a session (the flowing ones ${AFTER_TURNS} more; ${WORDS} words, ` +
      `one every ${(TURN_MS / 1000).toFixed(1)} s, ${INTERIMS} interims before each), ` +
      `~${(((SESSIONS + FLOWING) / TURN_MS) * 1000).toFixed(0)} finals/s; ${os.cpus().length} cores`,
  );

  // 1. The bare socket.io baseline, before the cluster starts (nothing else running).
  const bare = await startBareServer();
  let bareResult: RunResult;
  let bareBusy: RunResult;
  try {
    const memory = () =>
      new Promise<Mem>((resolve) => {
        const onMessage = (m: BareMessage) => {
          if (m.type !== 'memory-report') return;
          bare.child.off('message', onMessage);
          resolve({ rss: m.rss, heapUsed: m.heapUsed });
        };
        bare.child.on('message', onMessage);
        bare.child.send({ type: 'memory' } satisfies BareMessage);
      });
    const bareRun = (label: string) =>
      runLive({
        label,
        url: bare.url,
        token: 'bare',
        owner: 'bare',
        sink: bareSink(bare.child),
        pool,
        sessionKnown: async () => {},
        serverMemory: memory,
        cpu: cpuMeter(
          () =>
            new Map([
              ['socket.io server', [bare.child.pid!]],
              ['bench (publisher)', [process.pid]],
              ['viewers (their processes)', [...viewerPids]],
            ]),
        ),
      });
    bareResult = await bareRun('bare socket.io (child process)');
    bareBusy = await busy(() => bareRun('bare socket.io, one core kept busy'));
  } finally {
    await bare.stop();
  }

  // 2. Chronicler in cluster mode, one process per service; the gateway on a known ops port.
  const system: TestSystem = await startSystem({
    processes: 'many',
    mode: 'cluster',
    // One sign-in for the whole bench: its token outlives the runs (the default lives 15 minutes).
    env: { AUTH_LOCAL_ENABLED: 'true', LOG_LEVEL: 'warn', AUTH_TOKEN_TTL: '2h' },
  });
  let bus: Bus | undefined;
  let result: RunResult;
  let resultBusy: RunResult;
  const fanoutAt = new Map<string, number>();
  const storedAt = new Map<string, number>();
  try {
    const opsPort = await freePort();
    await stopChild(system.children.get('gateway')!);
    await system.spawn!('gateway', { env: { OPS_PORT: String(opsPort) } });
    const opsUrl = `http://127.0.0.1:${opsPort}`;
    await waitFor(
      async () => (await fetch(`${system.url}/api/health`).catch(() => undefined))?.status === 200,
      90_000,
      250,
    );
    const { cookie: token, body } = await localSignIn(system.url, 'bench-live');
    const owner = body.user!.id;
    bus = await createBus({
      natsUrl: system.env.NATS_URL,
      prefix: system.env.BUS_PREFIX!,
      name: 'bench-live',
      logger: createLogger(null, { level: 'warn' }),
    });
    // Where the time goes: the delivery the transcript service hands the gateways once the line
    // is stored (this process listens beside them).
    bus.subscribe('fanout.*', (p) => {
      const d = p as FanoutDelivery;
      if (d.event !== LiveSocketEvents.final && d.event !== LiveSocketEvents.userFinal) return;
      const e = d.payload as LiveTranscriptionEvent;
      fanoutAt.set(key(d.transcript_id, e.utterance_id), performance.now());
    });
    const liveBus = bus;
    const groups = () => {
      const g = new Map<string, number[]>([...system.children].map(([name, c]) => [name, [c.pid!]]));
      g.set('bench (publisher)', [process.pid]);
      g.set('viewers (their processes)', [...viewerPids]);
      for (const [n, pids] of pidsNamed(['nats-server', 'postgres', 'redis-server'])) g.set(n, pids);
      return g;
    };
    const clusterRun = (label: string) =>
      runLive({
        label,
        url: system.url,
        token,
        owner,
        sink: busSink(liveBus),
        pool,
        sessionKnown: (id) =>
          waitFor(
            async () => {
              try {
                await call(liveBus, liveJoinRpc, { owner_id: owner, id, after_seq: 0 });
                return true;
              } catch (err) {
                if (err instanceof ServiceError && err.code === 'not_found') return false;
                throw err;
              }
            },
            60_000,
            200,
          ),
        serverMemory: async () => {
          const m = await metricsOf(opsUrl);
          return {
            rss: m.get('process_resident_memory_bytes') ?? Number.NaN,
            heapUsed: m.get('nodejs_heap_size_used_bytes') ?? Number.NaN,
          };
        },
        cpu: cpuMeter(groups),
      });
    result = await clusterRun('chronicler cluster (bus, store, gateway)');
    await readStoredAt(system.env.DATABASE_URL!, result, storedAt);
    // The night's end is part of the run (every session closed and summarised automatically);
    // the busy run starts once that work is done, as the next night would, not during it.
    const settled = await summariesSettled(system.url, token, 300_000);
    console.log(`quiet run's sessions ended and summarised: ${settled}`);
    resultBusy = await busy(() => clusterRun('chronicler cluster, one core kept busy'));
    await readStoredAt(system.env.DATABASE_URL!, resultBusy, storedAt);
  } finally {
    await bus?.close();
    await system.stop();
  }

  // 3. Report.
  const row = (r: RunResult) => ({
    path: r.label,
    sockets: r.viewers,
    finals: r.finals,
    finalsPerSec: r.finalsPerSec,
    pairs: r.pairs,
    p50Ms: r.p50Ms,
    p99Ms: r.p99Ms,
    maxMs: r.maxMs,
    lost: r.lost,
    duplicated: r.duplicated,
    wrongText: r.wrongText,
    caughtUpByJoin: r.caughtUpByJoin,
    notEnded: r.notEnded,
    benchLoopP99Ms: r.loopDelayP99Ms,
    viewerLoopP99Ms: r.hostLoopDelayP99Ms,
  });
  printTable(
    `live: publish -> viewer final_update, ${SESSIONS} + ${FLOWING} sessions x ${VIEWERS} viewers (one clock: this process, the viewer hosts synced to it)`,
    [row(result), row(bareResult), row(resultBusy), row(bareBusy)],
  );
  printTable(
    'live: per phase, the lines still flowing while the sessions end against the steady part before',
    [result, bareResult, resultBusy, bareBusy].flatMap((r) => [
      ...r.phases.slice(0, 1).map((p) => ({ path: r.label, sessions: 'all', ...p })),
      ...r.flowingPhases.map((p) => ({
        path: r.label,
        sessions: `${FLOWING} flowing`,
        ...p,
        rejoins: r.rejoins,
        rejoinsForAnEnd: r.endRejoins,
        sessionsEnded: r.ends.ended,
        endsSpanS: r.ends.spanS,
        endsInBusiestSecond: r.ends.busiestSecond,
      })),
    ]),
  );
  console.log(
    `ratio chronicler/bare socket.io: p50 ${(result.p50Ms / bareResult.p50Ms).toFixed(1)}x, ` +
      `p99 ${(result.p99Ms / bareResult.p99Ms).toFixed(1)}x; one core busy: p50 ` +
      `${(resultBusy.p50Ms / bareBusy.p50Ms).toFixed(1)}x, p99 ${(resultBusy.p99Ms / bareBusy.p99Ms).toFixed(1)}x`,
  );

  // Hop by hop, for the finals this process saw at every step (stamps of both runs, by key).
  // `phase`: only the finals published before the first end (0) or from then on (1).
  const hopsOf = (r: RunResult, phase?: 0 | 1) => {
    const inPhase = (k: string) => {
      if (phase === undefined) return true;
      const from = r.publishedAt.get(k);
      return from !== undefined && (from < r.firstEndAt ? 0 : 1) === phase;
    };
    const h = {
      ack: phase === undefined ? r.ackMs : [],
      store: [] as number[],
      gateway: [] as number[],
      stored: [] as number[],
    };
    for (const v of r.viewerReceipts) {
      const fanned = fanoutAt.get(v.key);
      if (fanned !== undefined && inPhase(v.key)) h.gateway.push(v.at - fanned);
    }
    for (const [k, from] of r.publishedAt) {
      const fanned = fanoutAt.get(k);
      if (fanned !== undefined && inPhase(k)) h.store.push(fanned - from);
      const stored = storedAt.get(k);
      if (stored !== undefined && inPhase(k)) h.stored.push(stored - from);
    }
    return h;
  };
  if (process.env.BENCH_LIVE_DUMP) {
    // Per final of both Chronicler runs: times after its publish (ms) at each hop, for a closer
    // look at the tail.
    const records = [result, resultBusy].flatMap((r) => {
      const seen = new Map<string, number[]>();
      for (const v of r.viewerReceipts) {
        const xs = seen.get(v.key) ?? [];
        xs.push(v.at);
        seen.set(v.key, xs);
      }
      return [...r.publishedAt].map(([k, from]) => ({
        run: r.label,
        final: k,
        publishedAt: from,
        publishedAtEpochMs: performance.timeOrigin + from,
        firstEndAt: r.firstEndAt,
        fanoutMs: (fanoutAt.get(k) ?? Number.NaN) - from,
        storedMs: (storedAt.get(k) ?? Number.NaN) - from,
        viewersMs: (seen.get(k) ?? []).map((at) => at - from),
      }));
    });
    writeFileSync(process.env.BENCH_LIVE_DUMP, JSON.stringify(records));
    console.log(`per-final timings written to ${process.env.BENCH_LIVE_DUMP}`);
  }
  const hop = (name: string, xs: number[]) => {
    xs.sort((a, b) => a - b);
    return {
      hop: name,
      samples: xs.length,
      p50Ms: percentile(xs, 50),
      p99Ms: percentile(xs, 99),
      maxMs: xs.at(-1),
    };
  };
  for (const r of [result, resultBusy]) {
    const hops = hopsOf(r);
    printTable(`live: where the time goes (${r.label}; stamps in this process as it receives each message)`, [
      hop('publish -> JetStream ack (LIVE)', hops.ack),
      hop('publish -> fanout.<tid> (live-fanout: consume from LIVE, hand on; no PostgreSQL)', hops.store),
      hop('fanout.<tid> -> viewer (the gateways holding its viewers, socket.io, client)', hops.gateway),
      hop('publish -> viewer (end to end)', [...r.latencies]),
      hop('publish -> stored (transcript: consume from LIVE, PostgreSQL stored_at)', hops.stored),
    ]);
    const [steady, ends] = [hopsOf(r, 0), hopsOf(r, 1)];
    printTable(`live: where the time goes per phase (${r.label})`, [
      hop('steady: publish -> fanout.<tid>', steady.store),
      hop('steady: fanout.<tid> -> viewer', steady.gateway),
      hop('while the sessions end: publish -> fanout.<tid>', ends.store),
      hop('while the sessions end: fanout.<tid> -> viewer', ends.gateway),
      hop('steady: publish -> stored', steady.stored),
      hop('while the sessions end: publish -> stored', ends.stored),
    ]);
  }

  const cores = os.cpus().length;
  const cpuRows = (run: string, c: RunResult['cpu']) => [
    ...c.rows.map((r) => ({ run, ...r })),
    {
      run,
      process: 'other processes on the machine (not this bench)',
      cpuPercentOfOneCore: c.othersPercentOfOneCore,
    },
    { run, process: `machine busy (% of all ${cores} cores)`, cpuPercentOfOneCore: c.machineBusyPercent },
  ];
  printTable(`live: CPU during the replay (% of one core; the machine has ${cores} x 100 %)`, [
    ...cpuRows('cluster', result.cpu),
    ...cpuRows('bare', bareResult.cpu),
  ]);
  // Where the ends' CPU goes: each process's share before the first end and while they end.
  const phaseCpu = (r: RunResult) => {
    const ends = new Map(r.cpuByPhase.ends.rows.map((x) => [x.process, x.cpuPercentOfOneCore]));
    return [
      ...r.cpuByPhase.steady.rows.map((x) => ({
        process: x.process,
        steadyPercentOfOneCore: x.cpuPercentOfOneCore,
        whileEndingPercentOfOneCore: ends.get(x.process) ?? 0,
      })),
      {
        process: `machine busy (% of all ${cores} cores)`,
        steadyPercentOfOneCore: r.cpuByPhase.steady.machineBusyPercent,
        whileEndingPercentOfOneCore: r.cpuByPhase.ends.machineBusyPercent,
      },
    ];
  };
  for (const r of [result, resultBusy]) {
    printTable(
      `live: CPU by phase (${r.label}; % of one core; the ends' phase lasts until every viewer saw its end)`,
      phaseCpu(r),
    );
  }
  for (const r of [result, bareResult]) {
    if (r.cpu.othersPercentOfOneCore > 25) {
      console.log(
        `WARNING: during the ${r.label} run, processes outside this bench used ` +
          `${r.cpu.othersPercentOfOneCore.toFixed(0)} % of a core: its latencies include that contention`,
      );
    }
  }

  const memRow = (who: string, r: RunResult) => ({
    process: who,
    rssBeforeMB: r.server.before.rss / MB,
    rssAfterMB: r.server.after.rss / MB,
    heapBeforeMB: r.server.before.heapUsed / MB,
    heapAfterMB: r.server.after.heapUsed / MB,
    rssKBPerSocket: r.server.perSocketRss / KB,
    heapKBPerSocket: r.server.perSocketHeap / KB,
  });
  printTable(`live: server memory per connected socket (${sockets} joined; medians of 5 samples)`, [
    memRow('gateway (/metrics)', result),
    memRow('bare socket.io server', bareResult),
  ]);
  console.log(
    `viewer processes: ${(result.clientPerSocketHeap / KB).toFixed(1)} KB heap per socket.io-client viewer ` +
      `(after a full collection)`,
  );

  // Verdicts.
  const p99Ok = result.p99Ms < P99_BUDGET_MS;
  const busyP99Ok = resultBusy.p99Ms < BUSY_P99_BUDGET_MS;
  const complete = (r: RunResult) =>
    r.lost === 0 &&
    r.duplicated === 0 &&
    r.wrongText === 0 &&
    r.notEnded === 0 &&
    r.pairs === r.finals * VIEWERS;
  const nothingLost = complete(result) && complete(resultBusy);
  const perSocketKB = Math.max(result.server.perSocketRss, result.server.perSocketHeap) / KB;
  const barePerSocketKB = Math.max(bareResult.server.perSocketRss, bareResult.server.perSocketHeap) / KB;
  console.log(
    `p99 publish -> viewer ${result.p99Ms.toFixed(1)} ms: ${(result.p99Ms / P99_BUDGET_MS).toFixed(2)} x the ` +
      `${P99_BUDGET_MS} ms budget (${p99Ok ? 'within' : 'OVER'}); bare socket.io p99 ${bareResult.p99Ms.toFixed(1)} ms`,
  );
  console.log(
    `one core busy: p99 publish -> viewer ${resultBusy.p99Ms.toFixed(1)} ms: ` +
      `${(resultBusy.p99Ms / BUSY_P99_BUDGET_MS).toFixed(2)} x the ${BUSY_P99_BUDGET_MS} ms budget ` +
      `(${busyP99Ok ? 'within' : 'OVER'}); bare socket.io p99 ${bareBusy.p99Ms.toFixed(1)} ms`,
  );
  for (const [r, bareRun, budget] of [
    [result, bareResult, P99_BUDGET_MS],
    [resultBusy, bareBusy, BUSY_P99_BUDGET_MS],
  ] as const) {
    const [steady, ends] = r.flowingPhases;
    const [bareSteady, bareEnds] = bareRun.flowingPhases;
    console.log(
      `session ends (${r.label}): p99 of the ${FLOWING} flowing sessions' lines while ${r.ends.ended} ` +
        `others end (${r.ends.busiestSecond} in the busiest second, within ${(r.ends.spanS * 1000).toFixed(0)} ms) ` +
        `${ends!.p99Ms.toFixed(1)} ms against ${steady!.p99Ms.toFixed(1)} ms steady: ` +
        `${(ends!.p99Ms / steady!.p99Ms).toFixed(2)}x; bare socket.io ` +
        `${(bareEnds!.p99Ms / bareSteady!.p99Ms).toFixed(2)}x (${ends!.p99Ms < budget ? 'within' : 'OVER'} ` +
        `the ${budget} ms budget)`,
    );
    const w = r.steadyWindows;
    console.log(
      `  like against like (${r.label}): the flowing sessions' steady windows of ${w.size} finals have a ` +
        `p99 of ${w.medianP99Ms.toFixed(1)} ms (median of ${w.windows}), ${w.p90P99Ms.toFixed(1)} ms (p90), ` +
        `${w.maxP99Ms.toFixed(1)} ms (max); the ends' p99 is above ${(w.endsRank * 100).toFixed(0)} % of them`,
    );
  }
  for (const r of [result, resultBusy]) {
    console.log(
      `nothing lost (${r.label}): ${r.lost} lost, ${r.duplicated} twice, ${r.wrongText} wrong, ` +
        `${r.notEnded} viewers not ended, ${r.pairs} of ${r.finals * VIEWERS} finals seen live ` +
        `(${r.caughtUpByJoin} caught up by a re-join) (${complete(r) ? 'within' : 'OVER'})`,
    );
  }
  // Side by side, not against a fixed figure: what a socket costs depends on the machine.
  console.log(
    `gateway memory per socket ${perSocketKB.toFixed(1)} KB (the larger of RSS and heap growth), ` +
      `bare socket.io ${barePerSocketKB.toFixed(1)} KB: ${(perSocketKB / barePerSocketKB).toFixed(2)}x`,
  );
  if (!p99Ok || !busyP99Ok || !nothingLost) process.exitCode = 1;
}

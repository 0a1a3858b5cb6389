// The live bench's viewers, in processes of their own (this file, forked by live.ts): real
// viewers are separate browsers, so a viewer of a session still flowing does not wait while
// another process handles the ends of other sessions. Each host holds the viewers of the
// sessions it is given, stamps each final on receipt with its wall clock in milliseconds
// (`performance.timeOrigin + performance.now()`, corrected to the bench's clock by the offset
// measured with `clock` pings), and reports what its viewers hold once every session ended.
import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { LiveViewer } from '../support/live-viewer.ts';
import { repoRoot, stopChild, waitFor } from '../support/system.ts';

/** A session's viewers on one host, and the lines it will speak (to check what they hold). */
export interface HostedSession {
  transcriptId: string;
  texts: string[];
}

/** What viewers hold against what was spoken, once every session ended. */
export interface ViewerChecks {
  lost: number;
  duplicated: number;
  wrongText: number;
  caughtUpByJoin: number;
  notEnded: number;
  connectErrors: number;
}

/** A host's checks, and what its viewers saw when. */
export interface HostReport extends ViewerChecks {
  rejoins: number;
  endRejoins: number;
  /** [final's key, receipt time on the host's clock (epoch ms)] for every final seen live. */
  receipts: [string, number][];
  loopDelayP99Ms: number;
}

type ToHost =
  | { type: 'clock' }
  | { type: 'connect'; url: string; token: string; viewers: number; batch: number; sessions: HostedSession[] }
  | { type: 'start' }
  | { type: 'finish'; timeoutMs: number };

type FromHost =
  | { type: 'clock'; at: number }
  | { type: 'connected'; heapBefore: number; heapAfter: number; sockets: number }
  | { type: 'failed'; error: string }
  | ({ type: 'finished' } & HostReport);

const epochNow = (): number => performance.timeOrigin + performance.now();
export const finalKey = (transcriptId: string, utteranceId: string): string =>
  `${transcriptId}|${utteranceId}`;

async function hostMain(): Promise<void> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const send = (m: FromHost) => process.send?.(m);
  const viewers: LiveViewer[] = [];
  const texts = new Map<string, string[]>();
  const receipts: [string, number][] = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });

  async function connect(m: Extract<ToHost, { type: 'connect' }>): Promise<void> {
    for (const s of m.sessions) texts.set(s.transcriptId, s.texts);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const all = m.sessions.flatMap((s) => Array.from({ length: m.viewers }, () => s.transcriptId));
    for (let b = 0; b < all.length; b += m.batch) {
      const batch = all.slice(b, b + m.batch).map(
        (transcriptId) =>
          new LiveViewer(m.url, transcriptId, m.token, {
            // The whole client-side cost of a final here: LiveViewer stamps `at` first thing.
            onFinal: (e) => receipts.push([finalKey(transcriptId, e.utterance_id), epochNow()]),
          }),
      );
      viewers.push(...batch);
      await waitFor(() => batch.every((v) => v.joined !== null), 60_000, 50).catch(() => {
        throw new Error(
          `${batch.filter((v) => !v.joined).length} of ${batch.length} viewers did not join; ` +
            `errors: ${JSON.stringify(batch.flatMap((v) => v.errors).slice(0, 3))}`,
        );
      });
    }
    await new Promise((r) => setTimeout(r, 1000));
    gc();
    send({
      type: 'connected',
      heapBefore,
      heapAfter: process.memoryUsage().heapUsed,
      sockets: viewers.length,
    });
  }

  async function finish(timeoutMs: number): Promise<void> {
    let notEnded = 0;
    await Promise.all(viewers.map((v) => v.untilEnded(timeoutMs).catch(() => void notEnded++)));
    loop.disable();
    const report: HostReport = {
      lost: 0,
      duplicated: 0,
      wrongText: 0,
      caughtUpByJoin: 0,
      notEnded,
      connectErrors: 0,
      rejoins: 0,
      endRejoins: 0,
      receipts,
      loopDelayP99Ms: loop.percentile(99) / 1e6,
    };
    for (const v of viewers) {
      report.rejoins += v.rejoins;
      report.endRejoins += v.endRejoins;
      const expected = texts.get(v.transcriptId) ?? [];
      const live = new Set<number>();
      for (const f of v.finalsReceived) {
        if (live.has(f.seq)) report.duplicated++;
        live.add(f.seq);
      }
      for (let seq = 1; seq <= expected.length; seq++) {
        const line = v.lines.get(seq);
        if (!line) report.lost++;
        else {
          if (line.text !== expected[seq - 1]) report.wrongText++;
          if (!live.has(seq)) report.caughtUpByJoin++;
        }
      }
      // Lines beyond the session's own are wrong too.
      for (const seq of v.lines.keys()) if (seq < 1 || seq > expected.length) report.wrongText++;
      report.connectErrors += v.errors.length;
      v.close();
    }
    send({ type: 'finished', ...report });
  }

  process.on('message', (m: ToHost) => {
    const failed = (err: unknown) =>
      send({ type: 'failed', error: err instanceof Error ? err.message : String(err) });
    if (m.type === 'clock') send({ type: 'clock', at: epochNow() });
    else if (m.type === 'connect') connect(m).catch(failed);
    else if (m.type === 'start') loop.enable();
    else if (m.type === 'finish') finish(m.timeoutMs).catch(failed);
  });
  process.on('disconnect', () => process.exit(0));
  send({ type: 'clock', at: epochNow() });
}

if (process.env.BENCH_LIVE_VIEWER_HOST === '1') {
  hostMain().catch((err: unknown) => {
    console.error('live viewer host failed', err);
    process.exit(1);
  });
}

/** A forked viewer host, driven from the bench process. */
export class ViewerHost {
  /** Add to a receipt time of this host to put it on the bench's clock (performance.now()). */
  offsetMs = 0;
  private constructor(readonly child: ChildProcess) {}

  static async start(): Promise<ViewerHost> {
    const child = fork(fileURLToPath(import.meta.url), [], {
      cwd: repoRoot,
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, BENCH_LIVE_VIEWER_HOST: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const host = new ViewerHost(child);
    await host.next('clock');
    await host.syncClock();
    return host;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * The host's clock against this process's: over a few pings, the one with the shortest
   * round trip, its reading taken as made halfway through it.
   */
  async syncClock(pings = 20): Promise<void> {
    let best = { rtt: Number.POSITIVE_INFINITY, offset: 0 };
    for (let i = 0; i < pings; i++) {
      const sent = performance.now();
      const reply = this.next('clock');
      this.child.send({ type: 'clock' } satisfies ToHost);
      const { at } = await reply;
      const back = performance.now();
      if (back - sent < best.rtt) best = { rtt: back - sent, offset: (sent + back) / 2 - at };
    }
    this.offsetMs = best.offset;
  }

  async connect(o: {
    url: string;
    token: string;
    viewers: number;
    batch: number;
    sessions: HostedSession[];
  }): Promise<{ heapBefore: number; heapAfter: number; sockets: number }> {
    const reply = this.next('connected');
    this.child.send({ type: 'connect', ...o } satisfies ToHost);
    return reply;
  }

  start(): void {
    this.child.send({ type: 'start' } satisfies ToHost);
  }

  /** Waits until every viewer saw its session end (or timeoutMs), then what they hold, receipts on this clock. */
  async finish(timeoutMs: number): Promise<HostReport> {
    const reply = this.next('finished');
    this.child.send({ type: 'finish', timeoutMs } satisfies ToHost);
    const r = await reply;
    return { ...r, receipts: r.receipts.map(([k, at]) => [k, at + this.offsetMs]) };
  }

  stop(): Promise<void> {
    return stopChild(this.child);
  }

  private next<T extends FromHost['type']>(type: T): Promise<Omit<Extract<FromHost, { type: T }>, 'type'>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`live viewer host exited (${code})`));
      };
      const onMessage = (m: FromHost) => {
        if (m.type === 'failed') {
          cleanup();
          reject(new Error(`live viewer host: ${m.error}`));
        } else if (m.type === type) {
          cleanup();
          const { type: _type, ...rest } = m as Extract<FromHost, { type: T }>;
          resolve(rest);
        }
      };
      const cleanup = () => {
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
    });
  }
}

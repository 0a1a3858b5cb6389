// Deploys of the live path, one process per service as in the cluster, with a load balancer
// played here in front of two gateways: a gateway that gets SIGTERM moves its viewers away in
// slices, each reconnecting through the balancer to the other gateway with its last seq; and
// live-fanout killed with SIGKILL in the middle of a session and started again. In both, every
// viewer ends with every line, in order, once.
import { liveMsgId, liveSubject, type LiveUtterance, type Transcript } from '@chronicler/contracts';
import { createBus, createLogger, type Bus } from '@chronicler/kit';
import { busSink } from '@chronicler/voice-bot/replay';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { balanceGateways, type BalancedGateways } from '../support/balancer.ts';
import { localSignIn } from '../support/auth.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

/** Kills a process with SIGKILL (no shutdown: in-flight messages unacked, sockets cut). */
async function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await gone;
}

describe.runIf(testMode === 'cluster')(
  'live viewers through deploys (cluster, one process per service)',
  () => {
    let system: TestSystem;
    let bus: Bus;
    let balancer: BalancedGateways;
    let owner: { token: string; id: string };

    beforeAll(async () => {
      system = await startSystem({
        processes: 'many',
        services: ['auth', 'transcript', 'live-fanout'],
        // The chart's preStop delay (done by the process), then the sockets moved in slices.
        env: { AUTH_LOCAL_ENABLED: 'true', SHUTDOWN_DELAY_MS: '1000', LIVE_DRAIN_MS: '5000' },
      });
      // The balancer in front of two gateways, readiness followed all along.
      balancer = await balanceGateways(system);
      bus = await createBus({
        natsUrl: system.env.NATS_URL,
        prefix: system.env.BUS_PREFIX!,
        dataDir: system.env.DATA_DIR!,
        name: 'live-deploys-test',
        logger: createLogger(null, { level: 'warn' }),
      });
      const r = await localSignIn(system.url, 'gm');
      owner = { token: r.cookie, id: r.body.user!.id };
    }, 180_000);
    afterAll(async () => {
      balancer?.close();
      await bus?.close();
      await system?.stop();
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
      return bus.publishDurable(liveSubject.final(transcriptId), u, {
        msgId: liveMsgId.final(transcriptId, u.utterance_id),
      });
    };

    /** A session whose start is stored (a viewer finds it listed), with `count` viewers through the balancer. */
    async function session(name: string, count: number): Promise<{ id: string; viewers: LiveViewer[] }> {
      const { transcriptId: id } = await busSink(bus).start({ owner_id: owner.id, name });
      await waitFor(
        async () => (await apiCall(balancer.url, 'GET', `/transcripts/${id}`, owner.token)).status === 200,
        30_000,
      );
      const viewers = Array.from({ length: count }, () => new LiveViewer(balancer.url, id, owner.token));
      await waitFor(() => viewers.every((v) => v.joined !== null), 60_000).catch((err: Error) => {
        const e = viewers.flatMap((v) => v.errors).slice(0, 3);
        throw new Error(
          `${err.message}: ${viewers.filter((v) => !v.joined).length} not joined, ${JSON.stringify(e)}`,
        );
      });
      return { id, viewers };
    }

    /** Publishes a final every `everyMs` until stopped; resolves with the last index published. */
    function speak(id: string, everyMs: number): { stop(): Promise<number>; last(): number } {
      let n = 0;
      let stopped = false;
      const done = (async () => {
        while (!stopped) {
          await publishFinal(id, ++n);
          await sleep(everyMs);
        }
        return n;
      })();
      return {
        last: () => n,
        stop: () => {
          stopped = true;
          return done;
        },
      };
    }

    async function endAndCheck(id: string, n: number, viewers: LiveViewer[]): Promise<void> {
      await busSink(bus).end(id, { final_count: n, interim_count: 0 });
      await Promise.all(viewers.map((v) => v.untilEnded(90_000)));
      const expected = Array.from({ length: n }, (_, i) => i + 1);
      for (const v of viewers) {
        expect(v.ordered().map((l) => l.seq)).toEqual(expected);
        expect(v.ordered().map((l) => l.text)).toEqual(expected.map((i) => `Line number ${i}`));
        expect(v.ended?.last_seq).toBe(n);
      }
      const stored = await apiCall<Transcript>(balancer.url, 'GET', `/transcripts/${id}`, owner.token);
      expect(stored.body.status).toBe('ended');
      expect(stored.body.content.split('\n')).toHaveLength(n);
    }

    it('1,000 sockets joining 10 live sessions at once, over both gateways, all join and all receive the next line', async () => {
      const sessions = await Promise.all(Array.from({ length: 10 }, (_, i) => session(`Storm ${i}`, 0)));
      const gateways = balancer.backends.map((b) => `http://127.0.0.1:${b.port}`);
      // All at once, as a gateway restart's viewers come back (each socket: a handshake, then a join).
      const viewers = Array.from(
        { length: 1_000 },
        (_, i) =>
          new LiveViewer(gateways[i % gateways.length]!, sessions[i % sessions.length]!.id, owner.token),
      );
      try {
        const settled = () => viewers.every((v) => v.joined !== null || v.errors.length > 0);
        await waitFor(settled, 120_000).catch(() => undefined);
        const failed = viewers.filter((v) => v.joined === null || v.errors.length > 0);
        expect(
          failed.length,
          `failed joins, e.g. ${JSON.stringify(failed.slice(0, 3).map((v) => v.errors))}`,
        ).toBe(0);
        await Promise.all(sessions.map((s) => publishFinal(s.id, 1)));
        await Promise.all(viewers.map((v) => v.untilLines(1, 60_000)));
        for (const v of viewers) expect(v.ordered().map((l) => l.text)).toEqual(['Line number 1']);
      } finally {
        for (const v of viewers) v.close();
      }
    }, 240_000);

    it('a gateway that gets SIGTERM moves its viewers to the other one in slices, and none misses a line', async () => {
      const { id, viewers } = await session('Rollout', 20);
      // What each viewer held when its connection went: a slice at a time, lines between slices.
      const heldAtDisconnect = new Map<LiveViewer, number>();
      for (const v of viewers) v.socket.on('disconnect', () => heldAtDisconnect.set(v, v.contiguous()));
      const talk = speak(id, 100);
      let n: number;
      try {
        await Promise.all(viewers.map((v) => v.untilLines(3, 60_000)));
        const a = system.children.get('gateway')!;
        const exited = new Promise<number | null>((resolve) => a.once('exit', (code) => resolve(code)));
        a.kill('SIGTERM');
        expect(await exited).toBe(0);
        // A few lines more once every viewer is on the other gateway.
        const after = talk.last() + 5;
        await waitFor(() => talk.last() >= after, 60_000);
      } finally {
        n = await talk.stop();
      }
      await endAndCheck(id, n, viewers);

      const moved = viewers.filter((v) => heldAtDisconnect.has(v));
      // The balancer spread the viewers over both gateways; the stopped one's all reconnected.
      expect(moved.length).toBeGreaterThan(0);
      expect(moved.length).toBeLessThan(viewers.length);
      for (const v of moved) expect(v.connects).toBeGreaterThanOrEqual(2);
      // Not all at once: lines reached some of them on the stopping gateway after others had gone.
      expect(new Set(moved.map((v) => heldAtDisconnect.get(v))).size).toBeGreaterThan(1);
      for (const v of viewers) v.close();
    }, 240_000);

    it('live-fanout killed with SIGKILL mid-session and started again: every viewer ends with every line once', async () => {
      const { id, viewers } = await session('Fan-out crash', 4);
      const talk = speak(id, 100);
      let n: number;
      try {
        await Promise.all(viewers.map((v) => v.untilLines(3, 60_000)));
        await kill9(system.children.get('live-fanout')!);
        // Lines spoken while no fan-out runs: stored by the transcript service, delivered later.
        const during = talk.last() + 5;
        await waitFor(() => talk.last() >= during, 60_000);
        await system.spawn!('live-fanout');
        const after = talk.last() + 5;
        await Promise.all(viewers.map((v) => v.untilLines(after, 90_000)));
      } finally {
        n = await talk.stop();
      }
      await endAndCheck(id, n, viewers);
      // Their sockets stayed up: the lines missed while no fan-out ran came by seq, not by a reconnect.
      for (const v of viewers) expect(v.connects).toBe(1);
      for (const v of viewers) v.close();
    }, 240_000);
  },
);

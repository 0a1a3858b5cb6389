import type { Transcript } from '@chronicler/contracts';
import { createBus, createLogger, type Bus } from '@chronicler/kit';
import { busSink, readCrd3Turns, replaySession, type ReplayTurn } from '@chronicler/voice-bot/replay';
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { CRD3_DIR } from '../support/crd3.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { freePort, startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

/** Kills a process with SIGKILL (no shutdown: in-flight messages unacked, sockets cut). */
async function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await gone;
}

// One process per service and two gateways, as in the cluster. While a CRD3 episode is
// replayed live, the transcript service and each gateway are killed with SIGKILL and started
// again; the viewers must end with exactly the lines that were spoken. And a transcript
// service that comes back to a backlog of a whole session stores it all, at once, in order.
describe.runIf(testMode === 'cluster')(
  'live sessions survive kill -9 (cluster, one process per service)',
  () => {
    let system: TestSystem;
    let bus: Bus;
    let gateway2: string;
    let turns: ReplayTurn[];

    beforeAll(async () => {
      system = await startSystem({ processes: 'many', env: { AUTH_LOCAL_ENABLED: 'true' } });
      const port2 = await freePort();
      await system.spawn!('gateway', { key: 'gateway-2', env: { PORT: String(port2) } });
      gateway2 = `http://127.0.0.1:${port2}`;
      await waitFor(
        async () => (await fetch(`${gateway2}/api/health`).catch(() => undefined))?.status === 200,
        60_000,
      );
      bus = await createBus({
        natsUrl: system.env.NATS_URL,
        prefix: system.env.BUS_PREFIX!,
        dataDir: system.env.DATA_DIR!,
        name: 'live-faults-test',
        logger: createLogger(null, { level: 'warn' }),
      });
      turns = (await readCrd3Turns(path.join(CRD3_DIR, 'C2E003.json'))).slice(0, 40);
    }, 150_000);
    afterAll(async () => {
      await bus?.close();
      await system?.stop();
    });

    it('a browser that reconnects ends with exactly the lines spoken, none missing, none twice, and the store agrees', async () => {
      const alice = await localSignIn(system.url, 'alice');
      const owner = alice.body.user!.id;
      const token = alice.cookie;
      // About 40 s of replay: long enough for three kills and restarts in the middle even on a
      // loaded machine (a session that ends before the gateway goes leaves no socket to reconnect).
      const words = turns.reduce((n, t) => n + t.text.split(' ').length, 0);
      const speed = words / 2.5 / 40;

      let started!: (id: string) => void;
      const id = new Promise<string>((r) => (started = r));
      const replay = replaySession(busSink(bus), turns, { owner, speed, onStart: started });
      const transcriptId = await id;
      // A browser learns of a session from the list, once its start is stored.
      await waitFor(
        async () => (await apiCall(system.url, 'GET', `/transcripts/${transcriptId}`, token)).status === 200,
      );
      const v1 = new LiveViewer(system.url, transcriptId, token);
      const v2 = new LiveViewer(gateway2, transcriptId, token);
      try {
        await v1.untilLines(3);

        await kill9(system.children.get('transcript')!);
        await sleep(1500);
        await system.spawn!('transcript');

        // Each gateway goes in turn: its viewer reconnects once it is back (the socket edge
        // keeps nothing: what was emitted meanwhile comes with the rejoin, by seq).
        await v2.untilLines(v2.contiguous() + 2, 60_000);
        expect(v2.ended, 'the replay ended before the second gateway was killed').toBeNull();
        await kill9(system.children.get('gateway-2')!);
        await sleep(1000);
        await system.spawn!('gateway', { key: 'gateway-2', env: { PORT: new URL(gateway2).port } });

        await v1.untilLines(v1.contiguous() + 2, 60_000);
        expect(v1.ended, 'the replay ended before the gateway was killed').toBeNull();
        await kill9(system.children.get('gateway')!);
        await sleep(1000);
        await system.spawn!('gateway');

        const result = await replay;
        await Promise.all([v1.untilEnded(90_000), v2.untilEnded(90_000)]);
        expect(v1.connects).toBeGreaterThanOrEqual(2);
        expect(v2.connects).toBeGreaterThanOrEqual(2);

        const expected = turns.map((t) => t.text);
        for (const v of [v1, v2]) {
          const lines = v.ordered();
          expect(lines.map((l) => l.seq)).toEqual(expected.map((_, i) => i + 1));
          const wrong = lines.flatMap((l, i) =>
            l.text === expected[i] ? [] : [{ i, got: l.text.slice(0, 80), want: expected[i]?.slice(0, 80) }],
          );
          expect(wrong).toEqual([]);
          expect(v.ended?.last_seq).toBe(result.finals);
        }
        const stored = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${transcriptId}`, token);
        expect(stored.body.status).toBe('ended');
        expect(
          stored.body.content.split('\n').map((l) => l.replace(/^\[\d\d:\d\d:\d\d\] [^:]+: /, '')),
        ).toEqual(expected);
      } finally {
        v1.close();
        v2.close();
      }
    }, 240_000);

    it('a transcript service that comes back to a whole session queued stores every line, the end and the summary, and dead-letters nothing', async () => {
      const alice = await localSignIn(system.url, 'backlog');
      const owner = alice.body.user!.id;
      const token = alice.cookie;
      const deadLetters: unknown[] = [];
      const dlq = bus.subscribe('dlq.>', (p) => void deadLetters.push(p));
      try {
        const sink = busSink(bus);
        const { transcriptId } = await sink.start({ owner_id: owner, name: 'Backlog' });
        await waitFor(
          async () =>
            (await apiCall(system.url, 'GET', `/transcripts/${transcriptId}`, token)).status === 200,
        );
        await kill9(system.children.get('transcript')!);
        // 500 finals and the end, published while nothing stores them.
        const all = (await readCrd3Turns(path.join(CRD3_DIR, 'C1E001.json'))).slice(0, 500);
        for (const [i, t] of all.entries()) {
          await sink.send(transcriptId, [
            {
              utterance_id: `b-${i + 1}`,
              text: t.text.slice(0, 10_000),
              speaker_tag: t.speaker,
              speaker_info: { displayName: t.speaker.slice(0, 100) },
              start_seconds: i * 2,
              end_seconds: i * 2 + 1.5,
              is_final: true,
              final_index: i + 1,
            },
          ]);
        }
        await sink.end(transcriptId, { final_count: all.length, interim_count: 0 });
        await system.spawn!('transcript');
        await waitFor(
          async () =>
            (await apiCall<Transcript>(system.url, 'GET', `/transcripts/${transcriptId}`, token)).body
              .status === 'ended',
          120_000,
        );
        const stored = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${transcriptId}`, token);
        expect(
          stored.body.content.split('\n').map((l) => l.replace(/^\[\d\d:\d\d:\d\d\] [^:]+: /, '')),
        ).toEqual(all.map((t) => t.text));
        expect(stored.body.transcription_error ?? '').toBe('');
        await waitFor(
          async () =>
            (await apiCall<Transcript>(system.url, 'GET', `/transcripts/${transcriptId}`, token)).body
              .summary_status === 'done',
          120_000,
        );
        expect(deadLetters).toEqual([]);
      } finally {
        await dlq.unsubscribe();
      }
    }, 300_000);
  },
);

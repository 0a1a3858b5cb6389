// Live lines in the order the pipeline numbered them, stored the moment they arrive: nothing
// is refused because another final has not arrived; a gap older than LIVE_GAP_SECONDS is
// closed as lost; feeds have their own rate limit, retry, and end their session when they
// stop; a session whose feed vanished is ended after LIVE_SESSION_STALE_MINUTES of silence.
import { liveMsgId, liveSubject, type LiveUtterance, type Transcript } from '@chronicler/contracts';
import {
  busSink,
  httpSink,
  readCrd3Turns,
  readMachineKey,
  replaySession,
} from '@chronicler/voice-bot/replay';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { CRD3_DIR } from '../support/crd3.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { nodeEntry, repoRoot, startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

const INGEST_KEY = randomBytes(24).toString('base64url');
/** Short, so the gap and silence tests do not wait minutes; the rest of the suite keeps the defaults. */
const GAP_SECONDS = 1.5;
const STALE_SECONDS = 6;

describe(`live lines in order without waiting (${testMode} mode)`, () => {
  let system: TestSystem;
  let owner: { token: string; id: string };
  let machineKey: string;
  const viewers: LiveViewer[] = [];

  const api = <T = Record<string, unknown>>(method: string, p: string, body?: unknown) =>
    apiCall<T>(system.url, method, p, owner.token, body);
  const transcript = async (id: string) => (await api<Transcript>('GET', `/transcripts/${id}`)).body;
  const viewer = (transcriptId: string) => {
    const v = new LiveViewer(system.url, transcriptId, owner.token);
    viewers.push(v);
    return v;
  };

  beforeAll(async () => {
    system = await startSystem({
      env: {
        AUTH_LOCAL_ENABLED: 'true',
        LIVE_GAP_SECONDS: String(GAP_SECONDS),
        LIVE_SESSION_STALE_MINUTES: String(STALE_SECONDS / 60),
        ...(testMode === 'cluster' ? { LIVE_INGEST_KEY: INGEST_KEY } : {}),
      },
    });
    const r = await localSignIn(system.url, 'gm');
    owner = { token: r.cookie, id: r.body.user!.id };
    // The replay's own reader of the embedded system's key file.
    machineKey = testMode === 'cluster' ? INGEST_KEY : await readMachineKey(system.env.DATA_DIR!);
  }, 120_000);
  afterAll(async () => {
    for (const v of viewers) v.close();
    await system?.stop();
  });

  const final = (transcriptId: string, n: number): LiveUtterance => ({
    transcript_id: transcriptId,
    utterance_id: `u-${n}`,
    text: `Line number ${n}`,
    speaker_tag: 2,
    start_seconds: n,
    end_seconds: n + 0.5,
    final_index: n,
  });
  const publishFinal = (transcriptId: string, n: number) =>
    system.platform!.bus.publishDurable(liveSubject.final(transcriptId), final(transcriptId, n), {
      msgId: liveMsgId.final(transcriptId, `u-${n}`),
    });
  async function startSession(name: string): Promise<string> {
    const { transcriptId } = await busSink(system.platform!.bus).start({ owner_id: owner.id, name });
    await waitFor(async () => (await api('GET', `/transcripts/${transcriptId}`)).status === 200);
    return transcriptId;
  }

  it('stores finals delivered in reverse order at once, and reads them in the order they were spoken', async () => {
    const id = await startSession('Backwards');
    const v = viewer(id);
    await waitFor(() => v.joined !== null, 10_000);
    for (const n of [5, 4, 3, 2]) await publishFinal(id, n);
    // Final 1 has not arrived: the others are stored and shown all the same, not held behind it.
    await waitFor(() => v.lines.size === 4, 20_000);
    expect([...v.lines.keys()].sort()).toEqual([2, 3, 4, 5]);
    await publishFinal(id, 1);
    await v.untilLines(5);
    await busSink(system.platform!.bus).end(id, { final_count: 5, interim_count: 0 });
    await v.untilEnded();
    expect(v.ordered().map((l) => [l.seq, l.text])).toEqual(
      [1, 2, 3, 4, 5].map((n) => [n, `Line number ${n}`]),
    );
    const t = await transcript(id);
    expect(t.status).toBe('ended');
    expect(t.content.split('\n')).toEqual([1, 2, 3, 4, 5].map((n) => `[00:00:0${n}] 2: Line number ${n}`));
  });

  it('delivers a final to its viewer before the transcript service has stored it, and stores it after', async () => {
    const id = await startSession('Before the store');
    const v = viewer(id);
    await waitFor(() => v.joined !== null, 10_000);
    // The store is held on purpose: the session's row locked, as a store that is slow would.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    let storedWhenShown = -1;
    const holder = system.platform!.db.transaction(async (tx) => {
      await tx.query('select 1 from "transcript".live_sessions where transcript_id = $1 for update', [id]);
      locked();
      await released;
      const [row] = await tx.query<{ n: number | string }>(
        'select count(*) as n from "transcript".transcript_lines where transcript_id = $1',
        [id],
      );
      storedWhenShown = Number(row!.n);
    });
    await isLocked;
    try {
      await publishFinal(id, 1);
      await v.untilLines(1);
    } finally {
      release();
    }
    await holder;
    // Shown while the store was held: nothing was stored yet.
    expect(storedWhenShown).toBe(0);
    expect(v.ordered().map((l) => [l.seq, l.text])).toEqual([[1, 'Line number 1']]);
    // And stored once the store goes on: what a viewer saw is in the transcript.
    await waitFor(async () => (await transcript(id)).content.includes('Line number 1'), 20_000);
  });

  it("hands a session's lines only to a gateway that holds a viewer of it", async () => {
    const metricsUrl = `${system.opsUrl!}/metrics`;
    const finalsEmitted = async () => {
      const text = await (await fetch(metricsUrl)).text();
      const m = /^chronicler_live_events_total\{event="final_update"\} (\d+)/m.exec(text);
      return m ? Number(m[1]) : 0;
    };
    const watched = await startSession('Watched');
    const unwatched = await startSession('Nobody watches');
    const v = viewer(watched);
    await waitFor(() => v.joined !== null, 10_000);
    const before = await finalsEmitted();
    for (const n of [1, 2, 3]) await publishFinal(unwatched, n);
    await publishFinal(watched, 1);
    await v.untilLines(1);
    // The unwatched session's finals were published first, on the same path: none reached it.
    await waitFor(async () => (await transcript(unwatched)).content.includes('Line number 3'), 20_000);
    expect((await finalsEmitted()) - before).toBe(1);
  });

  it('closes a gap that stays open as lost, ends the session the end was kept for, and takes a late line in its place', async () => {
    const id = await startSession('Gaps');
    const v = viewer(id);
    await waitFor(() => v.joined !== null, 10_000);
    await publishFinal(id, 1);
    await publishFinal(id, 3);
    // The pipeline published four finals; 2 and 4 never come.
    await busSink(system.platform!.bus).end(id, { final_count: 4, interim_count: 0 });
    await v.untilEnded();
    expect(v.ordered().map((l) => [l.seq, l.lost ? 'lost' : l.text])).toEqual([
      [1, 'Line number 1'],
      [2, 'lost'],
      [3, 'Line number 3'],
      [4, 'lost'],
    ]);
    const ended = await transcript(id);
    expect(ended.status).toBe('ended');
    expect(ended.content.split('\n')).toEqual(['[00:00:01] 2: Line number 1', '[00:00:03] 2: Line number 3']);
    // Final 2 after all (a redelivery long after): nothing said is lost, and it reads in its place.
    await publishFinal(id, 2);
    await waitFor(async () => (await transcript(id)).content.includes('Line number 2'));
    expect((await transcript(id)).content.split('\n')).toEqual([
      '[00:00:01] 2: Line number 1',
      '[00:00:02] 2: Line number 2',
      '[00:00:03] 2: Line number 3',
    ]);
  });

  it('plays a 400-turn replay at speed 100 through /api/live-ingest to the end without a 429', async () => {
    const turns = (await readCrd3Turns(path.join(CRD3_DIR, 'C1E001.json'))).slice(0, 400);
    expect(turns).toHaveLength(400);
    // Each turn is three requests (two interims and the final): 1,200 in about half a minute,
    // twice the per-minute, per-address limit that browsers share. The feed has its own.
    const result = await replaySession(httpSink(system.url, machineKey), turns, {
      owner: owner.id,
      speed: 100,
      name: 'Four hundred turns',
    });
    expect(result.finals).toBe(400);
    await waitFor(async () => (await transcript(result.transcriptId)).status === 'ended', 60_000);
    const t = await transcript(result.transcriptId);
    expect(t.content.split('\n')).toHaveLength(400);
    expect(t.transcription_error ?? '').toBe('');
    // The browser behind the same address was not pushed over its limit by the feed.
    expect((await api('GET', '/transcripts')).status).toBe(200);
  }, 180_000);

  it('ends a session whose replay was interrupted (Ctrl-C) at once, with what was said so far', async () => {
    const episode = path.join(CRD3_DIR, 'C1E001.json');
    const child = spawn(
      process.execPath,
      [
        ...nodeEntry('services/voice-bot/src/replay/cli.ts'),
        '--episode',
        episode,
        '--owner',
        owner.id,
        // Fast enough that no pause between its finals reaches this system's short silence rule.
        '--speed',
        '10',
        '--url',
        system.url,
        // Joined to its option: a key may begin with '-', which parseArgs would take for an option.
        `--token=${machineKey}`,
        '--name',
        'Interrupted',
      ],
      {
        cwd: repoRoot,
        // Through the ingest entry in both modes (without NATS_URL the CLI does not use the bus).
        env: { ...process.env, NATS_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // A process started while both cores are busy with other test files: it may take a while.
    await waitFor(() => /transcript ([0-9a-f-]{36})/.test(stderr), 90_000).catch((err: Error) => {
      // What the replay said instead (a refusal it kept retrying, a crash) is the diagnosis.
      throw new Error(`${err.message}; the replay's stderr:\n${stderr}`);
    });
    const id = /transcript ([0-9a-f-]{36})/.exec(stderr)![1]!;
    await waitFor(async () => (await transcript(id)).content !== '', 60_000);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    await waitFor(async () => (await transcript(id)).status === 'ended', 20_000);
    const t = await transcript(id);
    // Ended by the replay itself, not by the silence rule (which would say why).
    expect(t.transcription_error ?? '').toBe('');
    expect(t.content.split('\n').length).toBeGreaterThanOrEqual(1);
    expect(t.content.split('\n').length).toBeLessThan(100);
  }, 180_000);

  it('ends a session whose feed vanished after the configured silence, and summarises it', async () => {
    const sink = httpSink(system.url, machineKey);
    const { transcriptId: id } = await sink.start({ owner_id: owner.id, name: 'Vanished' });
    await sink.send(id, [
      {
        utterance_id: 'only',
        text: 'We should rest here for the night.',
        speaker_tag: 'MATT',
        speaker_info: { displayName: 'MATT' },
        start_seconds: 1,
        end_seconds: 3,
        is_final: true,
        final_index: 1,
      },
    ]);
    // No end ever comes (the replay was killed with -9).
    await waitFor(async () => (await transcript(id)).status === 'ended', STALE_SECONDS * 1000 + 30_000);
    const t = await transcript(id);
    expect(t.transcription_error).toMatch(/without activity/);
    expect(t.content).toBe('[00:00:01] MATT: We should rest here for the night.');
    await waitFor(async () => (await transcript(id)).summary_status !== 'none', 30_000);
  }, 90_000);
});

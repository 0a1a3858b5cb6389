import {
  liveMsgId,
  liveSubject,
  type ActiveSession,
  type Transcript,
  type TranscriptListItem,
} from '@chronicler/contracts';
import {
  busSink,
  httpSink,
  readCrd3Turns,
  readMachineKey,
  replaySession,
  type LiveSink,
} from '@chronicler/voice-bot/replay';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { CRD3_DIR } from '../support/crd3.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

interface User {
  token: string;
  id: string;
}

const INGEST_KEY = randomBytes(24).toString('base64url');

describe(`live sessions through the socket (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: User;
  let bob: User;
  let machineKey: string;
  const viewers: LiveViewer[] = [];

  const signIn = async (name: string): Promise<User> => {
    const r = await localSignIn(system.url, name);
    return { token: r.cookie, id: r.body.user?.id ?? '' };
  };
  const api = <T = Record<string, unknown>>(
    method: string,
    p: string,
    token: string | undefined,
    body?: unknown,
  ) => apiCall<T>(system.url, method, p, token, body);
  const viewer = (
    transcriptId: string,
    token: string,
    opts?: ConstructorParameters<typeof LiveViewer>[3],
  ) => {
    const v = new LiveViewer(system.url, transcriptId, token, opts);
    viewers.push(v);
    return v;
  };

  beforeAll(async () => {
    system = await startSystem({
      env: { AUTH_LOCAL_ENABLED: 'true', ...(testMode === 'cluster' ? { LIVE_INGEST_KEY: INGEST_KEY } : {}) },
    });
    alice = await signIn('alice');
    bob = await signIn('bob');
    // The replay's own reader of the embedded system's key file.
    machineKey = testMode === 'cluster' ? INGEST_KEY : await readMachineKey(system.env.DATA_DIR!);
  }, 120_000);
  afterAll(async () => {
    for (const v of viewers) v.close();
    await system?.stop();
  });

  const turns = readCrd3Turns(path.join(CRD3_DIR, 'C1E001.json')).then((t) => t.slice(0, 12));

  /**
   * Waits until the transcript service has stored a session's start. The start goes through
   * a durable stream, so a viewer that joins the moment it was published can be told
   * 'Transcript not found' (the web client only opens sessions it has listed).
   */
  const untilStored = (transcriptId: string) =>
    waitFor(async () => (await api('GET', `/transcripts/${transcriptId}`, alice.token)).status === 200);

  /** Starts a replay and returns its transcript id as soon as the session is stored. */
  async function startReplay(sink: LiveSink, opts: { speed?: number; turns?: number } = {}) {
    let started!: (id: string) => void;
    const id = new Promise<string>((r) => (started = r));
    const done = replaySession(sink, (await turns).slice(0, opts.turns ?? 12), {
      owner: alice.id,
      speed: opts.speed ?? 40,
      onStart: started,
    });
    const transcriptId = await id;
    await untilStored(transcriptId);
    return { transcriptId, done };
  }

  it('shows a replayed CRD3 session live: interims, then finals in order with speakers and times, then the end, and a summary once', async () => {
    const { transcriptId, done } = await startReplay(httpSink(system.url, machineKey), { speed: 200 });
    const v = viewer(transcriptId, alice.token);
    await waitFor(() => v.joined !== null, 10_000);
    expect(v.joined!.status).toBe('active');

    // While it runs it is an active session with real counters and this viewer connected.
    await v.untilLines(2);
    // live-fanout hands a line to its viewers beside the transcript service's store, not
    // behind it, so the stored counters may trail what the viewer has shown.
    let mine: ActiveSession | undefined;
    await waitFor(async () => {
      const active = await api<ActiveSession[]>('GET', '/transcripts/active', alice.token);
      mine = active.body.find((s) => s.transcript_id === transcriptId);
      return (mine?.final_results ?? 0) >= 2;
    });
    expect(mine).toMatchObject({ is_active: true, session_id: transcriptId });
    expect(mine!.final_results).toBeGreaterThanOrEqual(2);
    expect(mine!.connected_clients).toBeGreaterThanOrEqual(1);
    expect((await api<ActiveSession[]>('GET', '/transcripts/active', bob.token)).body).toEqual([]);
    const during = await api<Transcript>('GET', `/transcripts/${transcriptId}`, alice.token);
    expect(during.body.status).toBe('active');
    expect(during.body.name).toBe('Live Transcription');
    expect(during.body.content.split('\n').length).toBeGreaterThanOrEqual(2);

    const result = await done;
    await v.untilEnded();
    const expected = (await turns).slice(0, 12);
    const lines = v.ordered();
    expect(lines.map((l) => l.seq)).toEqual(expected.map((_, i) => i + 1));
    expect(lines.map((l) => l.text)).toEqual(expected.map((t) => t.text));
    expect(lines.map((l) => l.speaker_info?.displayName)).toEqual(expected.map((t) => t.speaker));
    // Times count from the session start and never go back.
    for (let i = 1; i < lines.length; i++)
      expect(lines[i]!.start_seconds).toBeGreaterThan(lines[i - 1]!.start_seconds);
    expect(v.interims.length).toBeGreaterThan(0);
    expect(v.interims.every((e) => e.type === 'interim' && e.speaker_info?.displayName)).toBe(true);
    expect(v.ended).toMatchObject({
      transcript_id: transcriptId,
      last_seq: result.finals,
      name: 'Live Transcription',
    });
    // Each final came once by its own event (a replay may bring it again inside an 'initial').
    expect(new Set(v.finalsReceived.map((f) => f.seq)).size).toBe(v.finalsReceived.length);

    const stored = await api<Transcript>('GET', `/transcripts/${transcriptId}`, alice.token);
    expect(stored.body.status).toBe('ended');
    const storedLines = stored.body.content.split('\n');
    expect(storedLines).toHaveLength(12);
    expect(storedLines[0]).toMatch(new RegExp(`^\\[00:00:00\\] ${expected[0]!.speaker}: `));
    expect(stored.body.source).toBe('live');

    // Ended and without a summary: summarised once, automatically.
    await waitFor(async () => {
      const t = await api<TranscriptListItem>('GET', `/transcripts/${transcriptId}`, alice.token);
      return t.body.summary_status === 'done' && t.body.summary.length > 0;
    }, 30_000);
    expect((await api<ActiveSession[]>('GET', '/transcripts/active', alice.token)).body).toEqual([]);
    v.close();
  });

  it('gives a viewer who joins late the whole transcript so far, then the live lines', async () => {
    const { transcriptId, done } = await startReplay(httpSink(system.url, machineKey), { speed: 150 });
    const early = viewer(transcriptId, alice.token);
    await early.untilLines(5);
    const late = viewer(transcriptId, alice.token);
    await waitFor(() => late.joined !== null, 10_000);
    expect(late.contiguous()).toBeGreaterThanOrEqual(5);
    await done;
    await Promise.all([early.untilEnded(), late.untilEnded()]);
    expect(late.ordered().map((l) => l.text)).toEqual(early.ordered().map((l) => l.text));
    // A viewer that joins after the end gets everything and the end at once.
    const after = viewer(transcriptId, alice.token);
    await after.untilEnded();
    expect(after.ordered()).toHaveLength(12);
    // Longer than the viewers' own 30 s waits, so a stall fails with what each viewer holds.
  }, 90_000);

  it('stores a final once however often it is delivered, and keeps lines after a reconnect exactly once', async () => {
    const bus = system.platform!.bus;
    const sink = busSink(bus);
    const { transcriptId } = await sink.start({ owner_id: alice.id, name: 'Twice told' });
    await untilStored(transcriptId);
    const v = viewer(transcriptId, alice.token);
    await waitFor(() => v.joined !== null, 10_000);
    const u = (n: number) => ({
      transcript_id: transcriptId,
      utterance_id: `u-${n}`,
      text: `Line number ${n}`,
      speaker_tag: 2,
      start_seconds: n,
      end_seconds: n + 0.5,
      // as the pipeline numbers its finals: without it, finals handled at once (the consumer
      // runs 16 in parallel) would take their seq in whatever order their queries ran
      final_index: n,
    });
    await bus.publishDurable(liveSubject.final(transcriptId), u(1), {
      msgId: liveMsgId.final(transcriptId, 'u-1'),
    });
    // The same utterance again under another message id: past JetStream's de-duplication.
    await bus.publishDurable(liveSubject.final(transcriptId), u(1), { msgId: 'again-u-1' });
    await bus.publishDurable(liveSubject.final(transcriptId), u(2), {
      msgId: liveMsgId.final(transcriptId, 'u-2'),
    });
    await v.untilLines(2);
    // Drop the connection; lines stored meanwhile come with the rejoin.
    v.socket.disconnect();
    await bus.publishDurable(liveSubject.final(transcriptId), u(3), {
      msgId: liveMsgId.final(transcriptId, 'u-3'),
    });
    await waitFor(async () => {
      const t = await api<Transcript>('GET', `/transcripts/${transcriptId}`, alice.token);
      return t.body.content.split('\n').length === 3;
    });
    v.socket.connect();
    await v.untilLines(3);
    await sink.end(transcriptId, { final_count: 3, interim_count: 0 });
    await v.untilEnded();
    expect(v.ordered().map((l) => [l.seq, l.text, l.speaker_tag])).toEqual([
      [1, 'Line number 1', 2],
      [2, 'Line number 2', 2],
      [3, 'Line number 3', 2],
    ]);
    const stored = await api<Transcript>('GET', `/transcripts/${transcriptId}`, alice.token);
    expect(stored.body.content).toBe(
      ['[00:00:01] 2: Line number 1', '[00:00:02] 2: Line number 2', '[00:00:03] 2: Line number 3'].join(
        '\n',
      ),
    );
    expect(stored.body.name).toBe('Twice told');
  });

  it('keeps the lines of a session the pipeline had to end, and says why', async () => {
    const bus = system.platform!.bus;
    const sink = busSink(bus);
    const { transcriptId } = await sink.start({ owner_id: alice.id });
    await sink.send(transcriptId, [
      {
        utterance_id: 'a',
        text: 'Before the outage.',
        speaker_tag: 1,
        start_seconds: 1,
        end_seconds: 2,
        is_final: true,
        final_index: 1,
      },
    ]);
    const error = 'Speech-to-text unavailable: Deepgram did not answer after 6 attempts';
    await sink.end(transcriptId, { final_count: 1, interim_count: 0, error });
    await waitFor(
      async () =>
        (await api<Transcript>('GET', `/transcripts/${transcriptId}`, alice.token)).body.status === 'ended',
    );
    const t = await api<Transcript>('GET', `/transcripts/${transcriptId}`, alice.token);
    expect(t.body.transcription_error).toBe(error);
    expect(t.body.content).toBe('[00:00:01] 1: Before the outage.');
    const late = viewer(transcriptId, alice.token);
    await late.untilEnded();
    expect(late.ordered().map((l) => l.text)).toEqual(['Before the outage.']);
  });

  it("refuses another user's transcript, a missing token and a foreign Origin", async () => {
    const { transcriptId, done } = await startReplay(httpSink(system.url, machineKey), {
      speed: 200,
      turns: 3,
    });
    const snoop = viewer(transcriptId, bob.token);
    await waitFor(() => snoop.errors.length > 0, 10_000);
    expect(snoop.errors[0]).toMatchObject({ transcriptId, error: 'Transcript not found' });
    expect(snoop.joined).toBeNull();

    const anonymous = viewer(transcriptId, 'not-a-token');
    await waitFor(() => anonymous.errors.length > 0, 10_000);
    expect(String(anonymous.errors[0])).toMatch(/Authentication required|401/i);

    // A foreign page is refused before the transport opens (polling and websocket alike).
    const foreign = await fetch(`${system.url}/socket.io/?EIO=4&transport=polling`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const sameSite = await fetch(`${system.url}/socket.io/?EIO=4&transport=polling`, {
      headers: { origin: system.url },
    });
    expect(sameSite.status).toBe(200);
    const ws = io(system.url, {
      path: '/socket.io',
      transports: ['websocket'],
      auth: { token: alice.token },
      extraHeaders: { origin: 'https://evil.example' },
      reconnection: false,
    });
    const refused = await new Promise<string>((resolve) => ws.on('connect_error', (e) => resolve(e.message)));
    ws.close();
    expect(refused).toBeTruthy();
    await done;
  });

  it('closes the live socket of a session that signs out', async () => {
    const { transcriptId, done } = await startReplay(httpSink(system.url, machineKey), {
      speed: 200,
      turns: 3,
    });
    const second = await signIn('alice');
    const v = viewer(transcriptId, second.token);
    await waitFor(() => v.joined !== null, 10_000);
    const reason = new Promise<string>((resolve) => v.socket.once('disconnect', (r) => resolve(r)));
    expect((await api('GET', '/auth/logout', second.token)).status).toBe(200);
    expect(await reason).toBe('io server disconnect');
    await done;
  });

  it('lets only an admin or the machine use the ingest entry, and only into sessions it started', async () => {
    const start = { owner_id: alice.id };
    expect((await api('POST', '/live-ingest/sessions', undefined, start)).status).toBe(401);
    expect((await api('POST', '/live-ingest/sessions', bob.token, start)).status).toBe(403);
    expect((await api('POST', '/live-ingest/sessions', 'wrong-machine-key', start)).status).toBe(401);
    expect((await api('POST', '/live-ingest/sessions', machineKey, { owner_id: 'nobody' })).status).toBe(400);

    const started = await api<{ transcript_id: string; ingest_token: string }>(
      'POST',
      '/live-ingest/sessions',
      machineKey,
      start,
    );
    expect(started.status).toBe(200);
    // A token is bound to its session: it writes into no other, and no token writes into one
    // that the entry did not start (here, one of bob's made by the bus sink like the bot).
    const other = await busSink(system.platform!.bus).start({ owner_id: bob.id });
    const utterance = {
      utterance_id: 'x',
      text: 'hijack',
      speaker_tag: 1,
      start_seconds: 0,
      end_seconds: 1,
      is_final: true,
    };
    const write = await api('POST', `/live-ingest/sessions/${other.transcriptId}/utterances`, machineKey, {
      ingest_token: started.body.ingest_token,
      utterances: [utterance],
    });
    expect(write.status).toBe(404);
    const bad = await api(
      'POST',
      `/live-ingest/sessions/${started.body.transcript_id}/utterances`,
      machineKey,
      {
        ingest_token: started.body.ingest_token,
        utterances: [{ ...utterance, start_seconds: -1 }],
      },
    );
    expect(bad.status).toBe(400);
    await api('POST', `/live-ingest/sessions/${started.body.transcript_id}/end`, machineKey, {
      ingest_token: started.body.ingest_token,
      final_count: 0,
    });
    await waitFor(async () => {
      const t = await api<Transcript>('GET', `/transcripts/${started.body.transcript_id}`, alice.token);
      return t.body.status === 'ended';
    });
    const bobs = await api<Transcript>('GET', `/transcripts/${other.transcriptId}`, bob.token);
    expect(bobs.body.content).toBe('');
    // Nothing summarises an empty session.
    expect(
      (await api<Transcript>('GET', `/transcripts/${started.body.transcript_id}`, alice.token)).body
        .summary_status,
    ).toBe('none');
  });
});

import {
  TRANSCRIBE_NEEDS_PROVIDER,
  type AudioTrack,
  type Transcript,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodedSeconds, speechWavFile } from '../support/audio.ts';
import { localSignIn } from '../support/auth.ts';
import { startOpenAiPeer, type OpenAiPeer } from '../peers/openai.ts';
import { createTestDatabase, startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

/** Spoken words as WebM/Opus, as a browser's MediaRecorder writes them (espeak-ng + ffmpeg). */
function spokenWebm(dir: string, name: string, text: string): Buffer {
  const wavFile = path.join(dir, `${name}.wav`);
  const webmFile = path.join(dir, `${name}.webm`);
  speechWavFile(wavFile, text);
  execFileSync('ffmpeg', [
    '-loglevel',
    'error',
    '-y',
    '-i',
    wavFile,
    '-c:a',
    'libopus',
    '-f',
    'webm',
    webmFile,
  ]);
  return readFileSync(webmFile);
}

const split = (b: Buffer, size: number): Buffer[] => {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};

describe(`a recording made at the table, sent in chunks (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: string;
  let bob: string;
  let dir: string;
  let first: Buffer;
  let second: Buffer;

  const api = (token: string, p: string, init: RequestInit = {}) =>
    fetch(`${system.url}/api${p}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
    });
  const json = (token: string, p: string, body: unknown) =>
    api(token, p, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
  const chunk = (token: string, id: string, part: number, seq: number, bytes: Buffer, type = 'audio/webm') =>
    api(token, `/table-recordings/${id}/chunks?part=${part}&seq=${seq}`, {
      method: 'POST',
      body: bytes,
      headers: { 'content-type': type },
    });
  const start = async (name: string): Promise<string> => {
    const res = await json(alice, '/table-recordings', {
      name,
      session_date: '2026-11-28T00:00:00.000Z',
      mime_type: 'audio/webm;codecs=opus',
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'table-rec-'));
    first = spokenWebm(dir, 'first', 'Welcome back to the table, everyone. Roll for initiative.');
    second = spokenWebm(dir, 'second', 'The dragon wakes up and looks at the party.');
    // No speech provider: recordings are kept, not transcribed.
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' } });
    alice = (await localSignIn(system.url, 'alice')).cookie;
    bob = (await localSignIn(system.url, 'bob')).cookie;
  }, 120_000);
  // A stop waits for what is in flight (a transcription the last test started): on a loaded
  // 2-core machine that took over the default minute once.
  afterAll(async () => {
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('stores each chunk once, in order, whatever order and however often they come, and plays the whole', async () => {
    const id = await start('At the table');
    const chunks = split(first, 3000);
    expect(chunks.length).toBeGreaterThan(3);
    // Out of order, and every other one twice (an answer lost, the chunk sent again).
    const order = chunks.map((_, i) => i).reverse();
    for (const seq of order) {
      const res = await chunk(alice, id, 0, seq, chunks[seq]!);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ part: 0, seq, stored: true });
      if (seq % 2 === 0) {
        const again = await chunk(alice, id, 0, seq, Buffer.from('not the same bytes'));
        expect(await again.json()).toEqual({ part: 0, seq, stored: false });
      }
    }
    const done = await json(alice, `/table-recordings/${id}/finish`, { chunk_counts: [chunks.length] });
    expect(done.status).toBe(200);
    const item = (await done.json()) as TranscriptListItem;
    expect(item).toMatchObject({ name: 'At the table', source: 'audio', transcription_status: 'none' });
    // Finishing again answers the same session.
    const again = await json(alice, `/table-recordings/${id}/finish`, { chunk_counts: [chunks.length] });
    expect(((await again.json()) as TranscriptListItem).id).toBe(item.id);

    const tracks = (await (await api(alice, `/transcripts/${item.id}/audio/tracks`)).json()) as AudioTrack[];
    expect(tracks).toMatchObject([{ speaker: null, size: first.length, format: 'webm' }]);
    const audio = Buffer.from(await (await api(alice, `/transcripts/${item.id}/audio`)).arrayBuffer());
    expect(audio.equals(first)).toBe(true);
    // Not another user's.
    expect((await api(bob, `/transcripts/${item.id}/audio`)).status).toBe(404);
  });

  it('joins the parts of a resumed recording into one stream as long as both', async () => {
    const id = await start('Resumed after a reload');
    const a = split(first, 4000);
    const b = split(second, 4000);
    for (const [i, c] of a.entries()) expect((await chunk(alice, id, 0, i, c)).status).toBe(200);
    for (const [i, c] of b.entries()) expect((await chunk(alice, id, 1, i, c)).status).toBe(200);
    const done = await json(alice, `/table-recordings/${id}/finish`, { chunk_counts: [a.length, b.length] });
    expect(done.status).toBe(200);
    const item = (await done.json()) as TranscriptListItem;
    const audio = Buffer.from(await (await api(alice, `/transcripts/${item.id}/audio`)).arrayBuffer());
    const file = (name: string, bytes: Buffer) => {
      writeFileSync(path.join(dir, name), bytes);
      return path.join(dir, name);
    };
    const whole = decodedSeconds(file('whole.webm', audio));
    const parts = decodedSeconds(file('a.webm', first)) + decodedSeconds(file('b.webm', second));
    expect(Math.abs(whole - parts)).toBeLessThan(0.1);
  });

  it('refuses what it cannot keep, with the reason, and keeps what it has', async () => {
    const id = await start('Refusals');
    const chunks = split(first, 3000);
    expect((await chunk(alice, id, 0, 0, chunks[0]!)).status).toBe(200);
    // Another user's recording, or none: 404.
    expect((await chunk(bob, id, 0, 1, chunks[1]!)).status).toBe(404);
    expect((await chunk(alice, '00000000-0000-4000-8000-000000000000', 0, 1, chunks[1]!)).status).toBe(404);
    // A format the recording was not started with, or a part not starting with its header.
    const wrongType = await chunk(alice, id, 0, 1, chunks[1]!, 'audio/ogg');
    expect(wrongType.status).toBe(415);
    expect(((await wrongType.json()) as { detail: string }).detail).toContain('audio/webm');
    const noHeader = await chunk(alice, id, 1, 0, chunks[1]!);
    expect(noHeader.status).toBe(415);
    expect(((await noHeader.json()) as { detail: string }).detail).toContain(
      'not audio the server can decode',
    );
    // Too big.
    expect((await chunk(alice, id, 0, 1, Buffer.alloc(5 * 1024 * 1024, 1))).status).toBe(413);
    // Missing chunks: the finish says which, and nothing is made.
    const early = await json(alice, `/table-recordings/${id}/finish`, { chunk_counts: [3] });
    expect(early.status).toBe(409);
    expect(((await early.json()) as { detail: string }).detail).toContain('0/1, 0/2');
    // Bob cannot finish it.
    expect((await json(bob, `/table-recordings/${id}/finish`, { chunk_counts: [1] })).status).toBe(404);
    // What was stored is intact: the rest arrives and the whole plays.
    for (let seq = 1; seq < chunks.length; seq++) await chunk(alice, id, 0, seq, chunks[seq]!);
    const done = await json(alice, `/table-recordings/${id}/finish`, { chunk_counts: [chunks.length] });
    const item = (await done.json()) as TranscriptListItem;
    const audio = Buffer.from(await (await api(alice, `/transcripts/${item.id}/audio`)).arrayBuffer());
    expect(audio.equals(first)).toBe(true);
  });

  it('starts only with a name, a date and an Opus container', async () => {
    const bad = async (body: Record<string, unknown>) => {
      const res = await json(alice, '/table-recordings', {
        name: 'x',
        session_date: '2026-11-28',
        mime_type: 'audio/webm',
        ...body,
      });
      return { status: res.status, detail: ((await res.json()) as { detail: string }).detail };
    };
    expect(await bad({ name: '  ' })).toEqual({ status: 400, detail: 'Session name is required' });
    expect(await bad({ session_date: 'soon' })).toEqual({ status: 400, detail: 'Invalid session date' });
    expect((await bad({ mime_type: 'audio/mp4' })).status).toBe(415);
  });

  it('keeps an upload made with no provider instead of refusing it', async () => {
    const form = new FormData();
    form.append('name', 'Uploaded without a provider');
    form.append('session_date', '2026-11-28T00:00:00.000Z');
    form.append('audio', new Blob([first], { type: 'audio/webm' }), 'night.webm');
    const res = await api(alice, '/transcripts/manual-audio', { method: 'POST', body: form });
    expect(res.status).toBe(200);
    const item = (await res.json()) as TranscriptListItem;
    expect(item.transcription_status).toBe('none');
    const audio = Buffer.from(await (await api(alice, `/transcripts/${item.id}/audio`)).arrayBuffer());
    expect(audio.equals(first)).toBe(true);
  });
});

describe(`"Transcribe now" for a recording kept while no provider was set (${testMode} mode)`, () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'table-rec-later-'));
  let env: Record<string, string>;
  let dropDb: (() => Promise<void>) | undefined;
  let system: TestSystem | undefined;
  let whisper: OpenAiPeer;

  beforeAll(async () => {
    whisper = await startOpenAiPeer();
    env = {
      AUTH_LOCAL_ENABLED: 'true',
      SUMMARY_AUTOMATIC: 'false',
      DATA_DIR: dataDir,
      BUS_PREFIX: `t${randomBytes(4).toString('hex')}`,
      AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
    };
    if (testMode === 'cluster') {
      const db = await createTestDatabase();
      env.DATABASE_URL = db.url;
      dropDb = () => db.drop();
    }
  });
  afterAll(async () => {
    await system?.stop();
    await whisper?.close();
    await dropDb?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps it, refuses to transcribe without a provider, and gives timed lines once one is set', async () => {
    const recording = spokenWebm(dataDir, 'later', 'Welcome back to the table. The dragon wakes up.');
    const call = async (token: string, p: string, init: RequestInit = {}) => {
      const res = await fetch(`${system!.url}/api${p}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    system = await startSystem({ env });
    let alice = (await localSignIn(system.url, 'alice')).cookie;
    const form = new FormData();
    form.append('name', 'Kept for later');
    form.append('session_date', '2026-11-28T00:00:00.000Z');
    form.append('audio', new Blob([recording], { type: 'audio/webm' }), 'night.webm');
    const created = await call(alice, '/transcripts/manual-audio', { method: 'POST', body: form });
    expect(created.body.transcription_status).toBe('none');
    const id = String(created.body.id);
    expect(await call(alice, `/transcripts/${id}/transcribe`, { method: 'POST' })).toEqual({
      status: 400,
      body: { detail: TRANSCRIBE_NEEDS_PROVIDER },
    });
    await system.stop();
    system = undefined;

    // The operator sets a provider and restarts.
    system = await startSystem({ env: { ...env, ...whisper.transcription.env() } });
    alice = (await localSignIn(system.url, 'alice')).cookie;
    const bob = (await localSignIn(system.url, 'bob')).cookie;
    expect((await call(bob, `/transcripts/${id}/transcribe`, { method: 'POST' })).status).toBe(404);
    const queued = await call(alice, `/transcripts/${id}/transcribe`, { method: 'POST' });
    expect(queued.status).toBe(200);
    expect(['queued', 'processing']).toContain(queued.body.transcription_status);
    const again = await call(alice, `/transcripts/${id}/transcribe`, { method: 'POST' });
    expect(again.status).toBe(409);
    let done: Transcript | undefined;
    await waitFor(async () => {
      done = (await call(alice, `/transcripts/${id}`)).body as unknown as Transcript;
      return done.transcription_status === 'completed' || done.transcription_status === 'failed';
    }, 60_000);
    expect(done!.transcription_status).toBe('completed');
    // Lines at their real times in the recording.
    expect(done!.content).toMatch(/^\[00:00:0\d\] .*Words from \d+\.\d\d to \d+\.\d\d seconds\./m);
    expect(whisper.transcription.requests.length).toBeGreaterThan(0);
    // The recording still plays, byte for byte.
    const audio = await fetch(`${system.url}/api/transcripts/${id}/audio`, {
      headers: { authorization: `Bearer ${alice}` },
    });
    expect(Buffer.from(await audio.arrayBuffer()).equals(recording)).toBe(true);
    expect((await call(alice, `/transcripts/${id}/transcribe`, { method: 'POST' })).status).toBe(409);
  }, 180_000);
});

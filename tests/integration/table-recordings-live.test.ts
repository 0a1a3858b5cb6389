import type { AudioTrack, Transcript, TranscriptListItem } from '@chronicler/contracts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeepgramLivePeer, type DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { speechWavFile } from '../support/audio.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

const FIRST = 'Welcome back to the table, everyone. Roll for initiative.';
const SECOND = 'The dragon wakes up and looks at the party.';

/** Spoken words as WebM/Opus as MediaRecorder writes them (espeak-ng + ffmpeg), a second and a half of silence after them. */
function spoken(dir: string, name: string, text: string): { webm: Buffer; seconds: number } {
  const wav = path.join(dir, `${name}.wav`);
  const webm = path.join(dir, `${name}.webm`);
  speechWavFile(wav, text);
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-i',
    wav,
    '-af',
    'apad=pad_dur=1.5',
    '-c:a',
    'libopus',
    '-f',
    'webm',
    webm,
  ]);
  const pcm = execFileSync('ffmpeg', [
    '-v',
    'error',
    '-i',
    wav,
    '-f',
    's16le',
    '-ac',
    '1',
    '-ar',
    '16000',
    '-',
  ]);
  return { webm: readFileSync(webm), seconds: pcm.length / 32_000 + 1.5 };
}

const split = (b: Buffer, size: number): Buffer[] => {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += size) out.push(b.subarray(i, i + size));
  return out;
};

describe(`a recording at the table transcribed live by the streaming pipeline (${testMode} mode)`, () => {
  let system: TestSystem;
  let deepgram: DeepgramLivePeer;
  let alice: string;
  let dir: string;
  let first: ReturnType<typeof spoken>;
  let second: ReturnType<typeof spoken>;

  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${system.url}/api${p}`, {
      ...init,
      headers: { authorization: `Bearer ${alice}`, ...(init.headers as Record<string, string>) },
    });
  const post = (p: string, body: unknown) =>
    api(p, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  const chunk = (id: string, part: number, seq: number, bytes: Buffer) =>
    api(`/table-recordings/${id}/chunks?part=${part}&seq=${seq}`, {
      method: 'POST',
      body: bytes,
      headers: { 'content-type': 'audio/webm' },
    });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'table-live-'));
    first = spoken(dir, 'first', FIRST);
    second = spoken(dir, 'second', SECOND);
    deepgram = await startDeepgramLivePeer({ silenceMs: 600 });
    // Each voiced stretch the peer hears end in silence is the next line.
    deepgram.script([FIRST, SECOND]);
    system = await startSystem({
      env: { ...deepgram.env(), AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' },
    });
    alice = (await localSignIn(system.url, 'alice')).cookie;
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await deepgram?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it('gives its lines as the chunks come, at their times in the recording, and keeps the recording with them', async () => {
    const res = await post('/table-recordings', {
      name: 'Live at the table',
      session_date: '2026-11-28T00:00:00.000Z',
      mime_type: 'audio/webm;codecs=opus',
    });
    expect(res.status).toBe(200);
    const { id, live } = (await res.json()) as { id: string; live: boolean };
    expect(live).toBe(true);
    // The session exists from the start, with the recording's id, and is live.
    const session = async () => (await (await api(`/transcripts/${id}`)).json()) as Transcript;
    expect(await session()).toMatchObject({
      id,
      source: 'live',
      status: 'active',
      name: 'Live at the table',
    });

    const a = split(first.webm, 3000);
    for (const [seq, c] of a.entries()) expect((await chunk(id, 0, seq, c)).status).toBe(200);
    // Its line comes while it records.
    await waitFor(async () => (await session()).content.includes('Roll for initiative'), 60_000);

    // A reload: a second part, its chunks out of order; its line comes at its time in the
    // recording (after the first part's audio), not at the time its chunks arrived.
    const b = split(second.webm, 3000);
    for (const seq of b.map((_, i) => i).reverse())
      expect((await chunk(id, 1, seq, b[seq]!)).status).toBe(200);
    await waitFor(async () => (await session()).content.includes('looks at the party'), 60_000);

    const done = await post(`/table-recordings/${id}/finish`, { chunk_counts: [a.length, b.length] });
    expect(done.status).toBe(200);
    expect((await done.json()) as TranscriptListItem).toMatchObject({ id, source: 'live' });
    await waitFor(async () => (await session()).status === 'ended', 60_000);
    const lines = (await session()).content.split('\n');
    expect(lines).toHaveLength(2);
    const seconds = (line: string) => {
      const [h, m, s] = /^\[(\d\d):(\d\d):(\d\d)\]/.exec(line)!.slice(1).map(Number);
      return h! * 3600 + m! * 60 + s!;
    };
    expect(lines[0]).toContain(FIRST);
    expect(seconds(lines[0]!)).toBeLessThanOrEqual(1);
    expect(lines[1]).toContain(SECOND);
    expect(seconds(lines[1]!)).toBeGreaterThanOrEqual(Math.floor(first.seconds) - 1);
    expect(seconds(lines[1]!)).toBeLessThanOrEqual(Math.ceil(first.seconds) + 1);

    // The recording is the session's track, both parts joined: time 0 is the lines' time 0.
    const tracks = (await (await api(`/transcripts/${id}/audio/tracks`)).json()) as AudioTrack[];
    expect(tracks).toMatchObject([{ speaker: 'Table', format: 'webm' }]);
    // One stream, opened once and closed at the end.
    expect(deepgram.streams).toHaveLength(1);
    expect(deepgram.streams[0]!.closed).not.toBeNull();
  }, 180_000);
});

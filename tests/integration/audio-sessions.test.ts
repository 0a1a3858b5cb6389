import { parse as parseSubtitles } from '@plussub/srt-vtt-parser';
import { audioTooLargeMessage, type Transcript, type TranscriptListItem } from '@chronicler/contracts';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssemblyAiPeer, type AssemblyAiPeer } from '../peers/assemblyai.ts';
import { startDeepgramPeer, type DeepgramPeer } from '../peers/deepgram.ts';
import { startOpenAiPeer, type OpenAiPeer } from '../peers/openai.ts';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import {
  createTestDatabase,
  nodeEntry,
  repoRoot,
  startSystem,
  testMode,
  type TestSystem,
  waitFor,
} from '../support/system.ts';
import { phrasesWav, wav } from '../support/audio.ts';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const expectedContent = (bytes: number) =>
  [
    '[00:00:01] 1: Welcome back to the table, everyone.',
    '[00:00:03] 2: I roll for initiative.',
    `[00:00:04] 1: That recording had ${bytes} bytes.`,
  ].join('\n');

interface User {
  token: string;
  id: string;
}

interface Client {
  url: string;
  user: User;
}

async function signIn(system: TestSystem, name: string): Promise<User> {
  const s = await localSignIn(system.url, name);
  return { token: s.cookie, id: s.body.user?.id ?? '' };
}

async function upload(
  c: Client,
  file: { bytes: Buffer; type?: string; filename?: string } | null,
  fields: Record<string, string> = {
    name: 'Session 12: The Sunken Temple',
    session_date: '2015-03-12T00:00:00.000Z',
  },
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) {
    form.append(
      'audio',
      new Blob([file.bytes], { type: file.type ?? 'audio/wav' }),
      file.filename ?? 'session.wav',
    );
  }
  const res = await fetch(`${c.url}/api/transcripts/manual-audio`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.user.token}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function get<T>(c: Client, p: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${c.url}/api${p}`, { headers: { authorization: `Bearer ${c.user.token}` } });
  return { status: res.status, body: (await res.json()) as T };
}

async function post<T>(c: Client, p: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${c.url}/api${p}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.user.token}` },
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Polls the session (as the viewer does) until its transcription is finished. */
async function finished(c: Client, id: string, timeoutMs = 20_000): Promise<Transcript> {
  let last: Transcript | undefined;
  await waitFor(
    async () => {
      last = (await get<Transcript>(c, `/transcripts/${id}`)).body;
      return last.transcription_status === 'completed' || last.transcription_status === 'failed';
    },
    timeoutMs,
    50,
  );
  return last!;
}

describe(`audio sessions (${testMode} mode)`, () => {
  let deepgram: DeepgramPeer;
  let assembly: AssemblyAiPeer;

  beforeAll(async () => {
    deepgram = await startDeepgramPeer();
    assembly = await startAssemblyAiPeer();
  });
  afterAll(async () => {
    await deepgram?.close();
    await assembly?.close();
  });

  describe('with Deepgram', () => {
    let system: TestSystem;
    let alice: Client;
    let bob: Client;
    beforeAll(async () => {
      system = await startSystem({
        env: { AUTH_LOCAL_ENABLED: 'true', ...deepgram.env(), SPEECH_HTTP_TIMEOUT_MS: '5000' },
      });
      alice = { url: system.url, user: await signIn(system, 'alice') };
      bob = { url: system.url, user: await signIn(system, 'bob') };
    }, 120_000);
    afterAll(async () => {
      await system?.stop();
    });

    it('says which provider transcribes uploads in /api/config', async () => {
      const res = await fetch(`${system.url}/api/config`);
      expect(((await res.json()) as { speech_provider: string | null }).speech_provider).toBe('deepgram');
    });

    it('answers the session queued, then the viewer sees it completed with speaker lines', async () => {
      const audio = wav(48_000);
      const before = deepgram.requests.length;
      const res = await upload(
        alice,
        { bytes: audio },
        {
          name: '  Session 12: The Sunken Temple ',
          session_date: '2015-03-12T00:00:00.000Z',
          summary: 'The party dives.',
        },
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        name: 'Session 12: The Sunken Temple',
        summary: 'The party dives.',
        source: 'audio',
        transcription_status: 'queued',
        transcription_error: '',
        status: 'ended',
        preview: '',
      });
      const id = String(res.body.id);
      const done = await finished(alice, id);
      expect(done.transcription_status).toBe('completed');
      expect(done.content).toBe(expectedContent(audio.length));
      expect(done.audio_seconds).toBeCloseTo(audio.length / 32_000 + 5, 2);
      const sent = deepgram.requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.bytes).toBe(audio.length);
      expect(sent[0]!.head.subarray(0, 4).toString()).toBe('RIFF');
      expect(sent[0]!.query).toMatchObject({ diarize: 'true', utterances: 'true', model: 'nova-3' });
      const item = (await get<TranscriptListItem[]>(alice, '/transcripts')).body.find((t) => t.id === id);
      expect(item).toMatchObject({ transcription_status: 'completed', source: 'audio' });
      expect(item?.preview).toBe(`${expectedContent(audio.length).slice(0, 100)}...`);
      // Another user's id is not found.
      expect((await get(bob, `/transcripts/${id}`)).status).toBe(404);
    });

    it('refuses a file whose bytes are not audio with the specification message, and creates nothing', async () => {
      const before = (await get<TranscriptListItem[]>(alice, '/transcripts')).body.length;
      const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(5000)]);
      const res = await upload(alice, { bytes: pdf, type: 'application/pdf', filename: 'notes.pdf' });
      expect(res).toEqual({
        status: 400,
        body: {
          detail:
            'Invalid file type. Please select an audio file (MP3, M4A, WAV, etc.). Detected type: application/pdf',
        },
      });
      const untyped = await upload(alice, { bytes: pdf, type: '', filename: 'notes' });
      expect(untyped.body.detail).toBe(
        'Invalid file type. Please select an audio file (MP3, M4A, WAV, etc.). Detected type: unknown',
      );
      // Audio bytes under a wrong declared type are judged by what they are.
      const mislabelled = await upload(alice, {
        bytes: wav(1000),
        type: 'application/pdf',
        filename: 'x.pdf',
      });
      expect(mislabelled.status).toBe(200);
      await finished(alice, String(mislabelled.body.id));
      expect((await get<TranscriptListItem[]>(alice, '/transcripts')).body.length).toBe(before + 1);
    });

    it('checks the form before storing the file', async () => {
      const before = deepgram.requests.length;
      const count = (await get<TranscriptListItem[]>(alice, '/transcripts')).body.length;
      const noName = await upload(alice, { bytes: wav(1000) }, { name: '   ', session_date: '2015-03-12' });
      expect(noName).toEqual({ status: 400, body: { detail: 'Session name is required' } });
      const noDate = await upload(alice, { bytes: wav(1000) }, { name: 'A', session_date: '' });
      expect(noDate).toEqual({ status: 400, body: { detail: 'Session date is required' } });
      const longSummary = await upload(
        alice,
        { bytes: wav(1000) },
        { name: 'A', session_date: '2015-03-12', summary: 'x'.repeat(10_001) },
      );
      expect(longSummary).toEqual({
        status: 400,
        body: { detail: 'Session summary cannot exceed 10,000 characters' },
      });
      const noFile = await upload(alice, null);
      expect(noFile.status).toBe(400);
      expect((await get<TranscriptListItem[]>(alice, '/transcripts')).body.length).toBe(count);
      expect(deepgram.requests.length).toBe(before);
    });

    it('refuses a body declared over 500 MB before reading it', async () => {
      const boundary = 'chronicler-boundary';
      const declared = 500 * 1024 * 1024 + 300 * 1024;
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(`${system.url}/api/transcripts/manual-audio`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${alice.user.token}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': String(declared),
          },
        });
        req.on('response', (r) => {
          let body = '';
          r.on('data', (c: Buffer) => (body += c.toString()));
          r.on('end', () => {
            resolve({ status: r.statusCode ?? 0, body });
            req.destroy();
          });
        });
        req.on('error', reject);
        // Only the start of the body is ever sent; the answer comes without the rest.
        req.write(
          `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="big.wav"\r\n` +
            `Content-Type: audio/wav\r\n\r\n`,
        );
        req.write(wav(1000));
      });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ detail: audioTooLargeMessage(declared) });
      expect(audioTooLargeMessage(declared)).toBe(
        'File too large. Maximum size is 500MB. Selected file: 500.3MB',
      );
    });

    it('marks the session failed with the provider message and no transcript when the key is refused', async () => {
      deepgram.failures.push({ status: 401, message: 'Invalid credentials.' });
      const res = await upload(alice, { bytes: wav(2000) });
      expect(res.status).toBe(200);
      const done = await finished(alice, String(res.body.id));
      expect(done).toMatchObject({
        transcription_status: 'failed',
        transcription_error: 'Transcription failed: Deepgram answered 401: Invalid credentials.',
        content: '',
        audio_seconds: 0,
      });
    });

    it('tries a failed transcription again from the recording it kept, for its owner only, once', async () => {
      deepgram.failures.push({ status: 401, message: 'Invalid credentials.' });
      const audio = wav(2500);
      const res = await upload(alice, { bytes: audio });
      const id = String(res.body.id);
      expect(await finished(alice, id)).toMatchObject({
        transcription_status: 'failed',
        transcription_retryable: true,
      });
      expect((await post(bob, `/transcripts/${id}/retry-transcription`)).status).toBe(404);

      const again = await post<Record<string, unknown>>(alice, `/transcripts/${id}/retry-transcription`);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id, transcription_status: 'queued', transcription_error: '' });
      const done = await finished(alice, id);
      expect(done).toMatchObject({ transcription_status: 'completed', transcription_retryable: false });
      expect(done.content).toBe(expectedContent(audio.length));

      const twice = await post<{ detail: string }>(alice, `/transcripts/${id}/retry-transcription`);
      expect(twice).toEqual({
        status: 409,
        body: { detail: 'Only a failed transcription can be tried again.' },
      });
    });

    it('tries again after a 429 and completes', async () => {
      const before = deepgram.requests.length;
      deepgram.failures.push({ status: 429, message: 'Too many requests' });
      const audio = wav(3000);
      const res = await upload(alice, { bytes: audio });
      const done = await finished(alice, String(res.body.id));
      expect(done.transcription_status).toBe('completed');
      expect(done.content).toBe(expectedContent(audio.length));
      expect(deepgram.requests.slice(before).map((r) => r.status)).toEqual([429, 200]);
    });
  });

  describe('with AssemblyAI', () => {
    let system: TestSystem;
    let alice: Client;
    beforeAll(async () => {
      system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', ...assembly.env() } });
      alice = { url: system.url, user: await signIn(system, 'alice') };
    }, 120_000);
    afterAll(async () => {
      await system?.stop();
    });

    it('uploads, polls the job and stores speaker lines, times and duration', async () => {
      const audio = wav(64_000);
      const res = await upload(alice, { bytes: audio, type: 'audio/x-wav' });
      expect(res.status).toBe(200);
      expect(res.body.transcription_status).toBe('queued');
      const done = await finished(alice, String(res.body.id));
      expect(done.transcription_status).toBe('completed');
      expect(done.content).toBe(expectedContent(audio.length));
      expect(done.audio_seconds).toBe(Math.round(audio.length / 32_000 + 5));
      expect([...assembly.jobs.values()].some((j) => j.bytes === audio.length && j.speakerLabels)).toBe(true);
    });

    it('reports a job that ends in error', async () => {
      assembly.jobError = 'File does not appear to contain audio.';
      try {
        const res = await upload(alice, { bytes: wav(1000) });
        const done = await finished(alice, String(res.body.id));
        expect(done).toMatchObject({
          transcription_status: 'failed',
          transcription_error:
            'Transcription failed: AssemblyAI could not transcribe the recording: File does not appear to contain audio.',
          content: '',
        });
      } finally {
        assembly.jobError = null;
      }
    });
  });

  describe('after a worker restart mid-job', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-audio-restart-'));
    let env: Record<string, string>;
    let dropDb: (() => Promise<void>) | undefined;
    let system: TestSystem | undefined;

    beforeAll(async () => {
      env = {
        AUTH_LOCAL_ENABLED: 'true',
        ...assembly.env(),
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
      assembly.holdJobs = false;
      await system?.stop();
      await dropDb?.();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('resumes the provider job and completes it exactly once', async () => {
      system = await startSystem({ env });
      let alice: Client = { url: system.url, user: await signIn(system, 'alice') };
      const uploads = assembly.calls.upload;
      const jobsBefore = assembly.jobs.size;
      assembly.holdJobs = true;
      const audio = wav(20_011);
      const res = await upload(alice, { bytes: audio });
      expect(res.status).toBe(200);
      const id = String(res.body.id);
      const job = await assembly.waitForPolledJob((j) => j.bytes === audio.length);
      expect((await get<Transcript>(alice, `/transcripts/${id}`)).body.transcription_status).toBe(
        'processing',
      );

      await system.stop();
      system = undefined;
      system = await startSystem({ env });
      alice = { url: system.url, user: await signIn(system, 'alice') };
      const pollsBefore = job.polls;
      assembly.holdJobs = false;
      const done = await finished(alice, id, 60_000);
      expect(done.transcription_status).toBe('completed');
      expect(done.content).toBe(expectedContent(audio.length));
      expect(job.polls).toBeGreaterThan(pollsBefore);
      // One upload, one job: the restarted worker polled the job it had started.
      expect(assembly.calls.upload).toBe(uploads + 1);
      expect(assembly.jobs.size).toBe(jobsBefore + 1);
      const list = (await get<TranscriptListItem[]>(alice, '/transcripts')).body;
      expect(list.filter((t) => t.id === id)).toHaveLength(1);
    }, 120_000);
  });

  describe('with only an OpenAI-compatible transcription server (TRANSCRIPTION_BASE_URL)', () => {
    let whisper: OpenAiPeer;
    let system: TestSystem;
    let alice: Client;
    const logs: string[] = [];
    // The server takes about 9 s of WAV at once; longer recordings are split.
    const maxUpload = 300_000;
    beforeAll(async () => {
      whisper = await startOpenAiPeer();
      whisper.transcription.maxBytes = maxUpload + 2_000;
      system = await startSystem({
        env: {
          AUTH_LOCAL_ENABLED: 'true',
          ...whisper.transcription.env(),
          TRANSCRIPTION_MAX_UPLOAD_BYTES: String(maxUpload),
          SPEECH_HTTP_TIMEOUT_MS: '2000',
          LOG_LEVEL: 'info',
        },
        logDestination: { write: (line) => void logs.push(line) },
      });
      alice = { url: system.url, user: await signIn(system, 'alice') };
    }, 120_000);
    afterAll(async () => {
      await system?.stop();
      await whisper?.close();
    });
    const reset = () => {
      whisper.transcription.apiKey = null;
      whisper.transcription.failures.length = 0;
      whisper.transcription.lines.length = 0;
      whisper.transcription.speakerOf = null;
    };

    it('says at start which server transcribes, and /api/config and /api/health name the provider', async () => {
      const line = logs
        .map((l) => JSON.parse(l) as { msg: string; speechProvider?: string | null })
        .filter((l) => l.msg.startsWith('speech-to-text'));
      expect(line).toEqual([
        expect.objectContaining({
          speechProvider: 'openai',
          msg: `speech-to-text: openai-compatible server ${whisper.url} (model whisper-peer) transcribes uploads and the bot`,
        }),
      ]);
      const config = (await (await fetch(`${system.url}/api/config`)).json()) as { speech_provider: string };
      expect(config.speech_provider).toBe('openai');
      const health = (await (await fetch(`${system.url}/api/health`)).json()) as { speech_provider: string };
      expect(health.speech_provider).toBe('openai');
    });

    it('transcribes an uploaded WAV into lines at the server’s segment times', async () => {
      reset();
      whisper.transcription.lines.push('Welcome back to the table, everyone.', 'I roll for initiative.');
      const audio = phrasesWav(
        [
          [1.3, 1.5],
          [4.2, 2],
        ],
        7,
      );
      const before = whisper.transcription.requests.length;
      const res = await upload(alice, { bytes: audio });
      expect(res.status).toBe(200);
      const done = await finished(alice, String(res.body.id));
      expect(done).toMatchObject({ transcription_status: 'completed', audio_seconds: 7 });
      expect(done.content).toBe(
        ['[00:00:01] 1: Welcome back to the table, everyone.', '[00:00:04] 1: I roll for initiative.'].join(
          '\n',
        ),
      );
      const sent = whisper.transcription.requests.slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({
        model: 'whisper-peer',
        responseFormat: 'verbose_json',
        granularities: ['segment'],
        bytes: audio.length,
        status: 200,
      });
      expect(sent[0]!.segments.map((s) => s.start)).toEqual([1.3, 4.2]);
    });

    it('places the subtitles of an uploaded recording to the millisecond, from the stored times', async () => {
      reset();
      whisper.transcription.lines.push('Welcome back to the table, everyone.', 'I roll for initiative.');
      const res = await upload(alice, {
        bytes: phrasesWav(
          [
            [2.5, 1.5],
            [5.2, 2.6],
          ],
          9,
        ),
      });
      expect(res.status).toBe(200);
      const id = String(res.body.id);
      const done = await finished(alice, id);
      // The text keeps whole seconds...
      expect(done.content.split('\n').map((l) => l.slice(0, 10))).toEqual(['[00:00:02]', '[00:00:05]']);
      // ...the cues start and end where the server said, not at the second.
      for (const format of ['srt', 'vtt']) {
        const file = await fetch(`${system.url}/api/transcripts/${id}/export?format=${format}`, {
          headers: { authorization: `Bearer ${alice.user.token}` },
        });
        expect(file.status).toBe(200);
        const body = await file.text();
        expect(body).toContain(
          format === 'srt' ? '00:00:02,500 --> 00:00:04,000' : '00:00:02.500 --> 00:00:04.000',
        );
        expect(parseSubtitles(body).entries.map((c) => [c.from, c.to])).toEqual([
          [2500, 4000],
          [5200, 7800],
        ]);
      }
    });

    it.runIf(existsSync('/usr/bin/ffmpeg'))(
      'transcribes an uploaded MP3 at the segments’ times',
      async () => {
        reset();
        const dir = os.tmpdir();
        const wavPath = path.join(dir, `chronicler-${randomBytes(4).toString('hex')}.wav`);
        const mp3Path = wavPath.replace(/\.wav$/, '.mp3');
        writeFileSync(
          wavPath,
          phrasesWav(
            [
              [2.1, 1],
              [65.4, 1.5],
            ],
            70,
          ),
        );
        execFileSync('/usr/bin/ffmpeg', ['-loglevel', 'error', '-i', wavPath, '-b:a', '32k', mp3Path]);
        const mp3 = readFileSync(mp3Path);
        rmSync(wavPath);
        rmSync(mp3Path);
        const res = await upload(alice, { bytes: mp3, type: 'audio/mpeg', filename: 'session.mp3' });
        expect(res.status).toBe(200);
        const done = await finished(alice, String(res.body.id));
        expect(done.transcription_status).toBe('completed');
        expect(done.content).toBe(
          [
            '[00:00:02] 1: Words from 2.10 to 3.10 seconds.',
            '[00:01:05] 1: Words from 65.40 to 66.90 seconds.',
          ].join('\n'),
        );
      },
    );

    it('sends the names of the session’s campaign as the prompt', async () => {
      reset();
      const group = await apiCall<{ id: string }>(system.url, 'POST', '/groups', alice.user.token, {
        name: 'Vox Machina',
      });
      const terms = await apiCall(
        system.url,
        'PUT',
        `/groups/${group.body.id}/vocabulary`,
        alice.user.token,
        {
          terms: ['Kraghammer', 'Grog Strongjaw'],
        },
      );
      expect(terms.status).toBe(200);
      const before = whisper.transcription.requests.length;
      const res = await upload(
        alice,
        { bytes: phrasesWav([[0.5, 1]], 2) },
        { name: 'Session 3', session_date: '2015-03-12T00:00:00.000Z', group_id: group.body.id },
      );
      expect(res.body.group_id).toBe(group.body.id);
      expect((await finished(alice, String(res.body.id))).transcription_status).toBe('completed');
      const prompt = whisper.transcription.requests.slice(before)[0]!.prompt ?? '';
      expect(prompt.split(', ').slice(0, 2)).toEqual(['Kraghammer', 'Grog Strongjaw']);
    });

    // The service splits a long recording with ffmpeg (a fresh machine may lack it: skipped then).
    it.runIf(existsSync('/usr/bin/ffmpeg'))(
      'splits a recording over the server’s limit at its pauses and stitches the lines’ times',
      async () => {
        reset();
        // 40 s of WAV (1.28 MB), a phrase every 4 s: at least five pieces of at most 300 KB.
        const spans: [number, number][] = [];
        // Phrases start mid-second, so the whole seconds shown do not hang on the peer's 20 ms frames.
        for (let t = 1.5; t < 40; t += 4) spans.push([t, 2]);
        whisper.transcription.speakerOf = (i, seg) =>
          Math.round(seg.start) % 8 < 4 ? 'SPEAKER_00' : 'SPEAKER_01';
        const before = whisper.transcription.requests.length;
        const res = await upload(alice, { bytes: phrasesWav(spans, 40) });
        const done = await finished(alice, String(res.body.id), 60_000);
        expect(done.transcription_status).toBe('completed');
        const sent = whisper.transcription.requests.slice(before);
        expect(sent.length).toBeGreaterThanOrEqual(5);
        for (const r of sent) {
          expect(r.status).toBe(200);
          expect(r.bytes).toBeLessThanOrEqual(maxUpload);
        }
        const lines = done.content.split('\n');
        expect(lines).toHaveLength(spans.length);
        // Each phrase once, at its own time in the whole recording, not in its piece.
        expect(lines.map((l) => Number(/^\[00:00:(\d\d)\]/.exec(l)?.[1]))).toEqual(
          spans.map(([t]) => Math.floor(t)),
        );
        expect(lines.map((l) => /\] (\d):/.exec(l)?.[1])).toEqual(
          spans.map((_, i) => (i % 2 === 0 ? '1' : '2')),
        );
        expect(done.audio_seconds).toBe(40);
      },
      90_000,
    );

    it('fails with the server’s message when the key is refused, keeps the recording, and completes on retry', async () => {
      reset();
      whisper.transcription.apiKey = 'sk-the-server-wants-this';
      const audio = phrasesWav([[0.5, 1]], 2);
      const res = await upload(alice, { bytes: audio });
      const id = String(res.body.id);
      expect(await finished(alice, id)).toMatchObject({
        transcription_status: 'failed',
        transcription_error:
          'Transcription failed: The transcription server answered 401: Incorrect API key provided.',
        transcription_retryable: true,
        content: '',
      });
      // The operator drops the key requirement (or sets TRANSCRIPTION_API_KEY); the kept recording goes again.
      whisper.transcription.apiKey = null;
      const again = await post<Record<string, unknown>>(alice, `/transcripts/${id}/retry-transcription`);
      expect(again.status).toBe(200);
      const done = await finished(alice, id);
      expect(done.transcription_status).toBe('completed');
      expect(done.content).toBe('[00:00:00] 1: Words from 0.50 to 1.50 seconds.');
    });

    it('waits out a 429 with retry-after, a 500 and a slow answer, and completes', async () => {
      reset();
      whisper.transcription.failures.push(
        { status: 429, retryAfterSeconds: 1, message: 'Rate limit reached for requests' },
        { status: 500, message: 'CUDA out of memory' },
        { delayMs: 10_000 },
      );
      const before = whisper.transcription.requests.length;
      const res = await upload(alice, { bytes: phrasesWav([[1, 1]], 3) });
      const done = await finished(alice, String(res.body.id), 60_000);
      expect(done.transcription_status).toBe('completed');
      expect(done.content).toBe('[00:00:01] 1: Words from 1.00 to 2.00 seconds.');
      expect(whisper.transcription.requests.slice(before).map((r) => r.status)).toEqual([429, 500, 499, 200]);
    }, 90_000);
  });

  describe('with no speech provider', () => {
    let system: TestSystem;
    let alice: Client;
    const logs: string[] = [];
    beforeAll(async () => {
      system = await startSystem({
        env: { AUTH_LOCAL_ENABLED: 'true' },
        logDestination: { write: (line) => void logs.push(line) },
      });
      alice = { url: system.url, user: await signIn(system, 'alice') };
    }, 120_000);
    afterAll(async () => {
      await system?.stop();
    });

    it('says at start that uploads and the bot are off and which variables turn them on', () => {
      const off = logs
        .map((l) => JSON.parse(l) as { msg: string })
        .find((l) => l.msg.startsWith('speech-to-text'));
      expect(off?.msg).toMatch(
        /^speech-to-text is off: audio uploads and browser recordings are kept untranscribed and the bot records without transcribing/,
      );
      for (const v of ['TRANSCRIPTION_BASE_URL', 'DEEPGRAM_API_KEY', 'ASSEMBLYAI_API_KEY'])
        expect(off?.msg).toContain(v);
    });

    it('does not start when SPEECH_PROVIDER names a provider without its key, and names the variable', async () => {
      const err = await startSystem({
        env: { AUTH_LOCAL_ENABLED: 'true', SPEECH_PROVIDER: 'deepgram' },
      }).then(
        (s) => s.stop().then(() => null),
        (e: unknown) => e as Error,
      );
      expect(err?.message).toBe(
        'Invalid configuration: DEEPGRAM_API_KEY: is required by SPEECH_PROVIDER=deepgram but not set',
      );
    });

    it('stops a transcript service process started with SPEECH_PROVIDER=deepgram and no key, exit 78, naming DEEPGRAM_API_KEY', async () => {
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
      // The variables are read before anything is reached: no server needs to answer.
      Object.assign(env, {
        NATS_URL: 'nats://127.0.0.1:1',
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        REDIS_URL: 'redis://127.0.0.1:1',
        SPEECH_PROVIDER: 'deepgram',
        TRANSCRIPTION_BASE_URL: 'http://127.0.0.1:1/v1',
      });
      const child = spawn(process.execPath, nodeEntry('services/transcript/src/main.ts'), {
        cwd: repoRoot,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const [code] = (await once(child, 'exit')) as [number];
      expect(code).toBe(78);
      const fatal = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: string; msg: string })
        .find((l) => l.level === 'fatal');
      expect(fatal?.msg).toBe(
        'Invalid configuration: DEEPGRAM_API_KEY: is required by SPEECH_PROVIDER=deepgram but not set',
      );
    }, 60_000);

    it('says so in /api/config and keeps uploads untranscribed', async () => {
      const config = (await (await fetch(`${system.url}/api/config`)).json()) as { speech_provider: unknown };
      expect(config.speech_provider).toBeNull();
      const res = await upload(alice, { bytes: wav(1000) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ source: 'audio', transcription_status: 'none' });
      // Refused still: a file that is not audio, with nothing created.
      const bad = await upload(alice, {
        bytes: Buffer.from('%PDF-1.4 not audio at all, '.repeat(4)),
        type: 'application/pdf',
      });
      expect(bad.status).toBe(400);
      expect((await get<TranscriptListItem[]>(alice, '/transcripts')).body).toHaveLength(1);
    });
  });
});

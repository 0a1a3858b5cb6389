import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAiPeer, type OpenAiPeer } from '../../../../tests/peers/openai.ts';
import { loadConfig } from '@chronicler/kit';
import { pcmPieces, quietestCut, wavFile } from './audio-pieces.ts';
import {
  createSpeechProvider,
  describeSpeech,
  openAiProvider,
  parseTranscription,
  SpeechConfigSchema,
  speechConfigProblems,
  speechProviderName,
  SpeechError,
  type SpeechProvider,
} from './index.ts';
import { silence, tone } from './streaming/test-support.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const hasFfmpeg = existsSync('/usr/bin/ffmpeg');

/** Speech-like bursts at known times: [start, seconds] pairs, quiet in between. */
function bursts(spans: [number, number][], total: number): Buffer {
  const pcm = silence(total);
  for (const [start, seconds] of spans) tone(seconds).copy(pcm, Math.round(start * 16_000) * 2);
  return pcm;
}

const request = (file: Buffer, type = 'audio/wav') => ({
  openAudio: async () => Readable.from([file.subarray(0, 100), file.subarray(100)]),
  size: file.length,
  contentType: type,
});

async function failure(p: Promise<unknown>): Promise<SpeechError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SpeechError);
  return err as SpeechError;
}

describe('OpenAI-compatible transcription server: choice and settings', () => {
  it('is chosen when only its base URL is set, after either cloud key, or when named', () => {
    const url = 'http://127.0.0.1:8000/v1';
    expect(speechProviderName({ TRANSCRIPTION_BASE_URL: url })).toBe('openai');
    expect(speechProviderName({ TRANSCRIPTION_BASE_URL: url, DEEPGRAM_API_KEY: 'd' })).toBe('deepgram');
    expect(speechProviderName({ TRANSCRIPTION_BASE_URL: url, ASSEMBLYAI_API_KEY: 'a' })).toBe('assemblyai');
    expect(
      speechProviderName({ SPEECH_PROVIDER: 'openai', TRANSCRIPTION_BASE_URL: url, DEEPGRAM_API_KEY: 'd' }),
    ).toBe('openai');
    const config = loadConfig(SpeechConfigSchema, { TRANSCRIPTION_BASE_URL: url });
    expect(config.TRANSCRIPTION_MODEL).toBe('whisper-1');
    expect(config.TRANSCRIPTION_MAX_UPLOAD_BYTES).toBe(25_000_000);
    expect(createSpeechProvider(config)?.name).toBe('openai');
  });

  it('names the missing variable when SPEECH_PROVIDER names a provider without its key or URL', () => {
    expect(speechConfigProblems({ SPEECH_PROVIDER: 'deepgram' })).toEqual([
      { variable: 'DEEPGRAM_API_KEY', message: 'is required by SPEECH_PROVIDER=deepgram but not set' },
    ]);
    expect(speechConfigProblems({ SPEECH_PROVIDER: 'assemblyai' })[0]?.variable).toBe('ASSEMBLYAI_API_KEY');
    expect(speechConfigProblems({ SPEECH_PROVIDER: 'openai' })[0]?.variable).toBe('TRANSCRIPTION_BASE_URL');
    expect(speechConfigProblems({ SPEECH_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'k' })).toEqual([]);
    expect(speechConfigProblems({})).toEqual([]);
  });

  it('describes the provider in use, or what turns speech-to-text on', () => {
    expect(describeSpeech({ TRANSCRIPTION_BASE_URL: 'http://whisper:8000/v1' })).toBe(
      'speech-to-text: openai-compatible server http://whisper:8000/v1 (model whisper-1) transcribes uploads and the bot',
    );
    expect(describeSpeech({ DEEPGRAM_API_KEY: 'k' })).toBe(
      'speech-to-text: deepgram transcribes uploads and the bot',
    );
    const off = describeSpeech({});
    expect(off).toMatch(
      /^speech-to-text is off: audio uploads and browser recordings are kept untranscribed/,
    );
    for (const v of ['TRANSCRIPTION_BASE_URL', 'DEEPGRAM_API_KEY', 'ASSEMBLYAI_API_KEY'])
      expect(off).toContain(v);
  });

  it('reads the json and text answers of servers without segments as one line', () => {
    expect(parseTranscription({ text: ' Hello there. ' })).toEqual({
      durationSeconds: 0,
      segments: [{ start: 0, end: 0, text: 'Hello there.' }],
    });
    expect(parseTranscription('Hello there.\n').segments).toEqual([
      { start: 0, end: 0, text: 'Hello there.' },
    ]);
    expect(parseTranscription({ text: '', segments: [] }).segments).toEqual([]);
    expect(() => parseTranscription(null)).toThrow(SpeechError);
  });
});

describe('splitting PCM at quiet moments', () => {
  it('cuts at the quietest frame of the window', () => {
    const pcm = Buffer.concat([tone(1), silence(0.3), tone(1)]);
    const cut = quietestCut(pcm);
    const seconds = cut / 32_000;
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(1.3);
  });

  it('yields pieces below the limit that cover the whole file, cut in the pauses', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-pieces-'));
    try {
      // Speech every 2 s with 0.5 s pauses; pieces of at most about 5 s.
      const spans: [number, number][] = [];
      for (let t = 0; t < 19; t += 2) spans.push([t, 1.5]);
      const pcm = bursts(spans, 20);
      const file = path.join(dir, 'a.pcm');
      writeFileSync(file, pcm);
      const pieces = [];
      for await (const p of pcmPieces(file, 5 * 32_000 + 44)) pieces.push(p);
      expect(pieces.length).toBeGreaterThanOrEqual(4);
      let at = 0;
      for (const p of pieces) {
        expect(p.offsetSeconds).toBeCloseTo(at / 32_000, 6);
        expect(wavFile(p.pcm).length).toBeLessThanOrEqual(5 * 32_000 + 44);
        at += p.pcm.length;
        if (at < pcm.length) {
          // Each cut falls in a pause (1.5 s to 2 s of every 2 s).
          const second = (at / 32_000) % 2;
          expect(second).toBeGreaterThanOrEqual(1.5);
        }
      }
      expect(at).toBe(pcm.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('OpenAI-compatible transcription of uploads, through the peer', () => {
  let peer: OpenAiPeer;
  const provider = (env: Record<string, string> = {}): SpeechProvider =>
    createSpeechProvider(
      loadConfig(SpeechConfigSchema, { ...peer.transcription.env(), SPEECH_HTTP_TIMEOUT_MS: '3000', ...env }),
    )!;

  beforeAll(async () => {
    peer = await startOpenAiPeer();
  });
  afterAll(async () => {
    await peer?.close();
  });
  beforeEach(() => {
    peer.transcription.apiKey = null;
    peer.transcription.speakerOf = null;
    peer.transcription.failures.length = 0;
    peer.transcription.lines.length = 0;
    peer.transcription.maxBytes = 25 * 1024 * 1024;
  });

  it('sends the file with verbose_json and segment timestamps, and keeps the segments’ times', async () => {
    const audio = wavFile(
      bursts(
        [
          [1.2, 1.5],
          [4, 2],
        ],
        7,
      ),
    );
    peer.transcription.lines.push('Welcome back to the table.', 'I roll for initiative.');
    const before = peer.transcription.requests.length;
    const result = await provider().transcribe({ ...request(audio), prompt: 'Kraghammer, Vox Machina' });
    expect(result.lines).toEqual([
      { seconds: 1.2, end: 2.7, speaker: 1, text: 'Welcome back to the table.' },
      { seconds: 4, end: 6, speaker: 1, text: 'I roll for initiative.' },
    ]);
    expect(result.durationSeconds).toBe(7);
    const [sent] = peer.transcription.requests.slice(before);
    expect(sent).toMatchObject({
      model: 'whisper-peer',
      responseFormat: 'verbose_json',
      granularities: ['segment'],
      prompt: 'Kraghammer, Vox Machina',
      filename: 'recording.wav',
      bytes: audio.length,
      status: 200,
    });
  });

  it('numbers the speakers of a diarizing server in order of appearance', async () => {
    peer.transcription.speakerOf = (i) => ['SPEAKER_01', 'SPEAKER_00', 'SPEAKER_01'][i] ?? 'SPEAKER_02';
    const result = await provider().transcribe(
      request(
        wavFile(
          bursts(
            [
              [0.5, 1],
              [2, 1],
              [3.5, 1],
            ],
            5,
          ),
        ),
      ),
    );
    expect(result.lines.map((l) => l.speaker)).toEqual([1, 2, 1]);
  });

  it('sends the key when one is set, and says so clearly when it is refused, not to be retried', async () => {
    const keyless = provider();
    peer.transcription.apiKey = 'sk-local';
    const refused = await failure(keyless.transcribe(request(wavFile(bursts([[0, 1]], 2)))));
    expect(refused.message).toBe('The transcription server answered 401: Incorrect API key provided.');
    expect(refused.retryable).toBe(false);
    const ok = await provider({ TRANSCRIPTION_API_KEY: 'sk-local' }).transcribe(
      request(wavFile(bursts([[0, 1]], 2))),
    );
    expect(ok.lines).toHaveLength(1);
    expect(peer.transcription.requests.at(-1)!.authorization).toBe('Bearer sk-local');
  });

  it('waits as retry-after says after a 429 and goes on', async () => {
    peer.transcription.failures.push({ status: 429, retryAfterSeconds: 1, message: 'Rate limit reached' });
    const before = peer.transcription.requests.length;
    const result = await provider().transcribe(request(wavFile(bursts([[0.5, 1]], 2))));
    expect(result.lines).toHaveLength(1);
    expect(peer.transcription.requests.slice(before).map((r) => r.status)).toEqual([429, 200]);
  });

  it('fails retryable after server errors and a slow answer, with what the server said', async () => {
    peer.transcription.failures.push({ status: 500 }, { status: 500 }, { status: 500 });
    const down = await failure(provider().transcribe(request(wavFile(bursts([[0.5, 1]], 2)))));
    expect(down.message).toBe('The transcription server answered 500: Peer failure 500');
    expect(down.retryable).toBe(true);
    peer.transcription.failures.push({ delayMs: 5000 }, { delayMs: 5000 }, { delayMs: 5000 });
    const slow = await failure(
      provider({ SPEECH_HTTP_TIMEOUT_MS: '200' }).transcribe(request(wavFile(bursts([[0.5, 1]], 2)))),
    );
    expect(slow.message).toBe('The transcription server did not answer in time');
    expect(slow.retryable).toBe(true);
  });

  it('says which setting to lower when the server refuses a file as too large', async () => {
    peer.transcription.maxBytes = 100_000;
    const err = await failure(
      provider({ TRANSCRIPTION_MAX_UPLOAD_BYTES: '200000' }).transcribe(
        request(wavFile(bursts([[0.5, 1]], 5))),
      ),
    );
    expect(err.message).toMatch(
      /^The transcription server refused 0\.2 MB of audio as too large \(413\): Maximum content size limit \(100000\) exceeded/,
    );
    expect(err.message).toContain('TRANSCRIPTION_MAX_UPLOAD_BYTES');
    expect(err.retryable).toBe(false);
  });

  it('says plainly that ffmpeg is missing when a recording over the limit cannot be split', async () => {
    const provider = openAiProvider({
      baseUrl: peer.url,
      model: 'whisper-peer',
      maxUploadBytes: 100_000,
      timeoutMs: 2000,
      ffmpeg: '/nonexistent/ffmpeg',
    });
    const before = peer.transcription.requests.length;
    const err = await failure(provider.transcribe(request(wavFile(bursts([[0.5, 1]], 5)))));
    expect(err.message).toBe(
      'the recording is larger than the transcription server takes, and ffmpeg, needed to split it, is not installed on this server',
    );
    expect(err.retryable).toBe(false);
    expect(peer.transcription.requests.length).toBe(before);
  });

  it.runIf(hasFfmpeg)(
    'splits a recording over the server’s limit into pieces below it and stitches the times',
    async () => {
      // 30 s with a 1 s phrase every 3 s; the server takes at most about 8 s of WAV at once.
      const spans: [number, number][] = [];
      for (let t = 1; t < 30; t += 3) spans.push([t, 1]);
      const audio = wavFile(bursts(spans, 30));
      peer.transcription.maxBytes = 8 * 32_000 + 1000;
      const before = peer.transcription.requests.length;
      const result = await provider({ TRANSCRIPTION_MAX_UPLOAD_BYTES: String(8 * 32_000) }).transcribe(
        request(audio),
      );
      const sent = peer.transcription.requests.slice(before);
      expect(sent.length).toBeGreaterThanOrEqual(4);
      for (const r of sent) {
        expect(r.status).toBe(200);
        expect(r.bytes).toBeLessThanOrEqual(8 * 32_000);
      }
      expect(result.lines.map((l) => l.seconds)).toEqual(spans.map(([t]) => expect.closeTo(t, 1)));
      expect(result.durationSeconds).toBeCloseTo(30, 1);
    },
  );

  it.runIf(hasFfmpeg)('splits an MP3 over the limit after decoding it with ffmpeg', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-mp3-'));
    try {
      const spans: [number, number][] = [
        [1, 1],
        [5, 1],
        [9, 1],
      ];
      writeFileSync(path.join(dir, 'a.wav'), wavFile(bursts(spans, 12)));
      const { execFileSync } = await import('node:child_process');
      execFileSync('/usr/bin/ffmpeg', [
        '-loglevel',
        'error',
        '-i',
        path.join(dir, 'a.wav'),
        '-b:a',
        '64k',
        path.join(dir, 'a.mp3'),
      ]);
      const { readFileSync } = await import('node:fs');
      const mp3 = readFileSync(path.join(dir, 'a.mp3'));
      const result = await provider({ TRANSCRIPTION_MAX_UPLOAD_BYTES: String(70_000) }).transcribe(
        request(mp3, 'audio/mpeg'),
      );
      expect(result.lines.map((l) => Math.round(l.seconds))).toEqual([1, 5, 9]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

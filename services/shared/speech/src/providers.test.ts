import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAssemblyAiPeer, type AssemblyAiPeer } from '../../../../tests/peers/assemblyai.ts';
import { startDeepgramPeer, type DeepgramPeer } from '../../../../tests/peers/deepgram.ts';
import {
  createSpeechProvider,
  speakerNumber,
  speechProviderName,
  SpeechConfigSchema,
  SpeechError,
} from './index.ts';
import type { SpeechConfig } from './config.ts';
import type { TranscribeRequest } from './types.ts';

const wav = (dataBytes: number): Buffer => {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8);
  return Buffer.concat([header, Buffer.alloc(dataBytes, 1)]);
};

const config = (env: Record<string, string>): SpeechConfig => ({
  DEEPGRAM_MODEL: 'nova-3',
  ASSEMBLYAI_POLL_INTERVAL_MS: 20,
  SPEECH_HTTP_TIMEOUT_MS: 2000,
  ...env,
  ...(env.ASSEMBLYAI_POLL_INTERVAL_MS
    ? { ASSEMBLYAI_POLL_INTERVAL_MS: Number(env.ASSEMBLYAI_POLL_INTERVAL_MS) }
    : {}),
});

const request = (body: Buffer, extra: Partial<TranscribeRequest> = {}): TranscribeRequest => ({
  openAudio: async () => Readable.from([body.subarray(0, 10), body.subarray(10)]),
  size: body.length,
  contentType: 'audio/wav',
  ...extra,
});

async function failure(p: Promise<unknown>): Promise<SpeechError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SpeechError);
  return err as SpeechError;
}

describe('speech provider choice', () => {
  it('picks the named provider, else whichever key is set, Deepgram first, else none', () => {
    expect(speechProviderName({})).toBeNull();
    expect(speechProviderName({ ASSEMBLYAI_API_KEY: 'a' })).toBe('assemblyai');
    expect(speechProviderName({ ASSEMBLYAI_API_KEY: 'a', DEEPGRAM_API_KEY: 'd' })).toBe('deepgram');
    expect(
      speechProviderName({ SPEECH_PROVIDER: 'assemblyai', ASSEMBLYAI_API_KEY: 'a', DEEPGRAM_API_KEY: 'd' }),
    ).toBe('assemblyai');
    expect(speechProviderName({ SPEECH_PROVIDER: 'assemblyai', DEEPGRAM_API_KEY: 'd' })).toBeNull();
    expect(createSpeechProvider(config({}))).toBeNull();
    expect(SpeechConfigSchema.properties.DEEPGRAM_MODEL.default).toBe('nova-3');
  });

  it('numbers AssemblyAI speaker letters from 1', () => {
    expect(['A', 'B', 'Z', 'AA', '3'].map(speakerNumber)).toEqual([1, 2, 26, 27, 3]);
  });
});

describe('Deepgram adapter against the Deepgram peer', () => {
  let peer: DeepgramPeer;
  beforeAll(async () => {
    peer = await startDeepgramPeer();
  });
  afterAll(() => peer.close());

  it('streams the audio with diarization and answers 1-based speakers, times and duration', async () => {
    const provider = createSpeechProvider(config(peer.env()))!;
    expect(provider.name).toBe('deepgram');
    const body = wav(64_000);
    const result = await provider.transcribe(request(body));
    const sent = peer.requests.at(-1)!;
    expect(sent.bytes).toBe(body.length);
    expect(sent.head.subarray(0, 4).toString()).toBe('RIFF');
    expect(sent.authorization).toBe(`Token ${peer.apiKey}`);
    expect(sent.query).toMatchObject({ model: 'nova-3', diarize: 'true', utterances: 'true' });
    expect(result.durationSeconds).toBeCloseTo(body.length / 32_000 + 5, 2);
    expect(result.lines).toEqual([
      { seconds: 1.2, end: 3, speaker: 1, text: 'Welcome back to the table, everyone.' },
      { seconds: 3.6, end: 4.8, speaker: 2, text: 'I roll for initiative.' },
      { seconds: 4.9, end: 6.4, speaker: 1, text: `That recording had ${body.length} bytes.` },
    ]);
  });

  it('turns a refused key into a clear error that is not retried', async () => {
    const provider = createSpeechProvider(config({ ...peer.env(), DEEPGRAM_API_KEY: 'wrong' }))!;
    const err = await failure(provider.transcribe(request(wav(1000))));
    expect(err.status).toBe(401);
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('Deepgram answered 401: Invalid credentials.');
  });

  it('marks 429, 500 and a response slower than the limit as retryable', async () => {
    const provider = createSpeechProvider(config(peer.env()))!;
    peer.failures.push({ status: 429, message: 'Too many requests' }, { status: 500 }, { delayMs: 3000 });
    const tooMany = await failure(provider.transcribe(request(wav(1000))));
    expect([tooMany.status, tooMany.retryable, tooMany.message]).toEqual([
      429,
      true,
      'Deepgram answered 429: Too many requests',
    ]);
    const server = await failure(provider.transcribe(request(wav(1000))));
    expect([server.status, server.retryable]).toEqual([500, true]);
    const slow = await failure(provider.transcribe(request(wav(1000))));
    expect([slow.retryable, slow.message]).toEqual([true, 'Deepgram did not answer in time']);
  });
});

describe('AssemblyAI adapter against the AssemblyAI peer', () => {
  let peer: AssemblyAiPeer;
  beforeAll(async () => {
    peer = await startAssemblyAiPeer();
  });
  afterAll(() => peer.close());

  it('uploads, submits with speaker labels, polls, and maps letters, milliseconds and duration', async () => {
    const provider = createSpeechProvider(config(peer.env()))!;
    expect(provider.name).toBe('assemblyai');
    const body = wav(96_000);
    const jobIds: string[] = [];
    const result = await provider.transcribe(request(body, { onJobId: async (id) => void jobIds.push(id) }));
    expect(jobIds).toHaveLength(1);
    const job = peer.jobs.get(jobIds[0]!)!;
    expect(job).toMatchObject({ bytes: body.length, speakerLabels: true, status: 'completed' });
    expect(result.durationSeconds).toBe(Math.round(body.length / 32_000 + 5));
    expect(result.lines).toEqual([
      { seconds: 1.2, end: 3, speaker: 1, text: 'Welcome back to the table, everyone.' },
      { seconds: 3.6, end: 4.8, speaker: 2, text: 'I roll for initiative.' },
      { seconds: 4.9, end: 6.4, speaker: 1, text: `That recording had ${body.length} bytes.` },
    ]);
  });

  it('resumes a known job without uploading again', async () => {
    const provider = createSpeechProvider(config(peer.env()))!;
    let jobId = '';
    await provider.transcribe(request(wav(500), { onJobId: async (id) => void (jobId = id) }));
    const uploads = peer.calls.upload;
    let opened = false;
    const again = await provider.transcribe(
      request(wav(500), {
        resumeJobId: jobId,
        openAudio: async () => {
          opened = true;
          return Readable.from([wav(500)]);
        },
      }),
    );
    expect(opened).toBe(false);
    expect(peer.calls.upload).toBe(uploads);
    expect(again.lines).toHaveLength(3);
  });

  it('reports a job that ends in error, not retryable, with the provider message', async () => {
    const provider = createSpeechProvider(config(peer.env()))!;
    peer.jobError = 'File does not appear to contain audio.';
    try {
      const err = await failure(provider.transcribe(request(wav(500))));
      expect(err.retryable).toBe(false);
      expect(err.message).toBe(
        'AssemblyAI could not transcribe the recording: File does not appear to contain audio.',
      );
    } finally {
      peer.jobError = null;
    }
  });

  it('classifies 401 as final and 429, 500 and timeouts as retryable', async () => {
    const bad = createSpeechProvider(config({ ...peer.env(), ASSEMBLYAI_API_KEY: 'wrong' }))!;
    const denied = await failure(bad.transcribe(request(wav(500))));
    expect([denied.status, denied.retryable, denied.message]).toEqual([
      401,
      false,
      'AssemblyAI answered 401: Authentication error, API token missing/invalid',
    ]);
    const provider = createSpeechProvider(config(peer.env()))!;
    peer.failures.push({ route: 'upload', status: 429, message: 'Too many requests' });
    expect((await failure(provider.transcribe(request(wav(500))))).retryable).toBe(true);
    peer.failures.push({ route: 'poll', status: 500 });
    const server = await failure(provider.transcribe(request(wav(500))));
    expect([server.status, server.retryable]).toEqual([500, true]);
    peer.failures.push({ route: 'submit', delayMs: 3000 });
    const slow = await failure(provider.transcribe(request(wav(500))));
    expect([slow.retryable, slow.message]).toEqual([true, 'AssemblyAI did not answer in time']);
  });
});

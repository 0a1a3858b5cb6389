import { loadConfig } from '@chronicler/kit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAiPeer, type OpenAiPeer } from '../../../../../tests/peers/openai.ts';
import { SpeechConfigSchema } from '../config.ts';
import { createStreamingProvider, streamLimits } from './provider.ts';
import { frames, Recorder, silence, tone } from './test-support.ts';
import type { StreamingProvider } from './types.ts';

describe('live transcription per utterance through an OpenAI-compatible server', () => {
  let peer: OpenAiPeer;
  let provider: StreamingProvider;

  beforeAll(async () => {
    peer = await startOpenAiPeer();
    provider = createStreamingProvider(
      loadConfig(SpeechConfigSchema, {
        ...peer.transcription.env(),
        SPEECH_LIVE_RECONNECT_ATTEMPTS: '2',
        SPEECH_HTTP_TIMEOUT_MS: '3000',
      }),
    )!;
  });
  afterAll(async () => {
    await peer?.close();
  });
  beforeEach(() => {
    peer.transcription.apiKey = null;
    peer.transcription.failures.length = 0;
    peer.transcription.lines.length = 0;
  });

  const speak = (stream: { write(b: Buffer): void }, pcm: Buffer) => {
    for (const f of frames(pcm)) stream.write(f);
  };

  it('is the provider chosen by TRANSCRIPTION_BASE_URL, with its own stream limit', () => {
    expect(provider.name).toBe('openai');
    expect(streamLimits(loadConfig(SpeechConfigSchema, { TRANSCRIPTION_MAX_STREAMS: '7' })).openai).toBe(7);
  });

  it('sends each utterance when the speaker pauses and answers it with one final at its place', async () => {
    peer.transcription.lines.push('Welcome back.', 'Roll for initiative.');
    const events = new Recorder();
    const before = peer.transcription.requests.length;
    const stream = await provider.open({ keyterms: ['Kraghammer', 'Grog'], language: 'en' }, events);
    speak(stream, Buffer.concat([silence(0.5), tone(1.5)]));
    stream.flush();
    await events.waitFor('the first final', (r) => r.finals.length === 1);
    expect(peer.transcription.requests.length - before).toBe(1);
    // Silence in between is not sent on its own.
    speak(stream, silence(1));
    stream.flush();
    speak(stream, tone(1));
    await stream.finish();
    expect(events.utterances.map((u) => [u.utteranceId, u.text, u.isFinal])).toEqual([
      ['1', 'Welcome back.', true],
      ['2', 'Roll for initiative.', true],
    ]);
    expect(events.utterances[0]!.startSeconds).toBeCloseTo(0.5, 1);
    expect(events.utterances[0]!.endSeconds).toBeCloseTo(2, 1);
    expect(events.utterances[1]!.startSeconds).toBeCloseTo(3, 1);
    expect(events.closes).toEqual([{}]);
    const sent = peer.transcription.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatchObject({
      prompt: 'Kraghammer, Grog',
      language: 'en',
      responseFormat: 'verbose_json',
      fileType: 'audio/wav',
    });
    expect(sent[0]!.seconds).toBeCloseTo(2, 2);
  });

  it('keeps each speaker’s finals in order while a request is retried after a 429', async () => {
    peer.transcription.failures.push({ status: 429, retryAfterSeconds: 1 });
    peer.transcription.lines.push('First.', 'Second.');
    const events = new Recorder();
    const stream = await provider.open({}, events);
    // Audio of its own (the peer answers audio it heard before with the same line).
    speak(stream, tone(1, 16_000, 260));
    stream.flush();
    speak(stream, Buffer.concat([silence(0.3), tone(1, 16_000, 270)]));
    stream.flush();
    await stream.finish();
    expect(events.finals.map((u) => u.text)).toEqual(['First.', 'Second.']);
    expect(events.closes).toEqual([{}]);
  });

  it('cuts a monologue with no pause at its quietest moment near the limit', async () => {
    const events = new Recorder();
    const before = peer.transcription.requests.length;
    const stream = await provider.open({}, events);
    // 33 s of speech with short breaths every 3 s: the 30 s limit cuts at the last breath.
    const parts: Buffer[] = [];
    for (let i = 0; i < 11; i++) parts.push(tone(2.8), silence(0.2));
    speak(stream, Buffer.concat(parts));
    await stream.finish();
    const sent = peer.transcription.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.seconds).toBeGreaterThan(25);
    expect(sent[0]!.seconds).toBeLessThanOrEqual(30);
    expect(sent[0]!.seconds + sent[1]!.seconds).toBeCloseTo(33, 1);
    expect(events.finals).toHaveLength(2);
  }, 20_000);

  it('ends the stream with the server’s message when it refuses, and sends nothing more', async () => {
    peer.transcription.apiKey = 'sk-other';
    const events = new Recorder();
    const before = peer.transcription.requests.length;
    const stream = await provider.open({}, events);
    speak(stream, tone(1));
    stream.flush();
    await events.waitFor('the close', (r) => r.closes.length === 1);
    expect(events.closes[0]!.error?.message).toBe(
      'The transcription server answered 401: Incorrect API key provided.',
    );
    expect(events.closes[0]!.error?.retryable).toBe(false);
    speak(stream, tone(1));
    stream.flush();
    await stream.finish();
    expect(peer.transcription.requests.length - before).toBe(1);
    expect(events.closes).toHaveLength(1);
  });

  it('gives up after its tries when the server stays down, with its message', async () => {
    peer.transcription.failures.push({ status: 500 }, { status: 500 });
    const events = new Recorder();
    const stream = await provider.open({}, events);
    speak(stream, tone(1));
    stream.flush();
    await events.waitFor('the close', (r) => r.closes.length === 1);
    expect(events.closes[0]!.error?.message).toBe('The transcription server answered 500: Peer failure 500');
    expect(events.closes[0]!.error?.retryable).toBe(true);
  });
});

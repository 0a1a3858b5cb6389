import { speechErrors, speechReconnects, speechStreamsOpen } from '@chronicler/kit';
import { afterEach, describe, expect, it } from 'vitest';
import { startDeepgramLivePeer, type DeepgramLivePeer } from '../../../../../tests/peers/deepgram-live.ts';
import { createStreamingProvider, SpeechConfigSchema, type SpeechConfig } from '../index.ts';
import { deepgramLiveProvider, type DeepgramLiveOptions } from './deepgram-live.ts';
import { frames, Recorder, silence, tone } from './test-support.ts';
import { StreamingError, type SpeechStream } from './types.ts';

const BYTES_PER_SECOND = 32_000;

const peers: DeepgramLivePeer[] = [];
const streams: SpeechStream[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.abort();
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

async function peer(opts: Parameters<typeof startDeepgramLivePeer>[0] = {}): Promise<DeepgramLivePeer> {
  const p = await startDeepgramLivePeer(opts);
  peers.push(p);
  return p;
}

function provider(p: DeepgramLivePeer, extra: Partial<DeepgramLiveOptions> = {}) {
  return deepgramLiveProvider({
    apiKey: p.apiKey,
    baseUrl: p.url,
    model: 'nova-3',
    ...extra,
    tuning: { reconnectBaseDelayMs: 50, ...extra.tuning },
  });
}

/** The deepgram sample of a speech metric (process-wide: tests compare before and after). */
async function metric(m: typeof speechErrors | typeof speechStreamsOpen): Promise<number> {
  return (await m.get()).values.find((v) => v.labels.provider === 'deepgram')?.value ?? 0;
}

function writeAll(stream: SpeechStream, pcm: Buffer): number {
  for (const frame of frames(pcm)) stream.write(frame);
  return pcm.length;
}

describe('Deepgram live adapter against the Deepgram live peer', () => {
  it('answers interims then a final per voiced segment, with the scripted text, stable ids and offsets from the stream start', async () => {
    const p = await peer();
    p.script(['Tharivol draws her blade.', 'The goblin flees into Neverwinter Wood!']);
    const events = new Recorder();
    const stream = await provider(p).open({ keyterms: ['Tharivol', 'Neverwinter'], label: 't1:u1' }, events);
    streams.push(stream);

    writeAll(stream, Buffer.concat([silence(0.6), tone(0.8), silence(0.6), tone(0.8), silence(0.6)]));
    await events.waitFor('two finals', (r) => r.finals.length === 2);

    const [first, second] = events.finals;
    expect(first).toMatchObject({ utteranceId: 'u1', text: 'Tharivol draws her blade.', isFinal: true });
    expect(second).toMatchObject({ utteranceId: 'u2', text: 'The goblin flees into Neverwinter Wood!' });
    expect(first!.startSeconds).toBeCloseTo(0.6, 1);
    expect(first!.endSeconds).toBeCloseTo(1.4, 1);
    expect(second!.startSeconds).toBeCloseTo(2.0, 1);
    expect(second!.endSeconds).toBeCloseTo(2.8, 1);

    const interims = events.utterances.filter((u) => !u.isFinal);
    expect(interims.filter((u) => u.utteranceId === 'u1').map((u) => u.text)).toEqual([
      'Tharivol',
      'Tharivol draws',
      'Tharivol draws her',
      'Tharivol draws her',
    ]);
    // Every interim of an utterance comes before its final.
    const lastInterimOfU1 = events.utterances.findLastIndex((u) => u.utteranceId === 'u1' && !u.isFinal);
    expect(lastInterimOfU1).toBeLessThan(events.utterances.indexOf(first!));

    const sent = p.streams[0]!;
    expect(sent.keyterms).toEqual(['Tharivol', 'Neverwinter']);
    expect(sent.auth).toBe('header');
    expect(sent.query).toMatchObject({
      model: 'nova-3',
      encoding: 'linear16',
      sample_rate: '16000',
      channels: '1',
      interim_results: 'true',
      punctuate: 'true',
      smart_format: 'true',
      endpointing: '300',
      utterance_end_ms: '1000',
    });
  });

  it('flush() asks for a final of what was said (Finalize), finish() ends the stream once the provider closed', async () => {
    const p = await peer();
    p.script(['I cast fireball.', 'Roll for damage.']);
    const events = new Recorder();
    const stream = await provider(p).open({}, events);

    // No trailing silence: only Finalize can end the segment (Discord sends nothing in a pause).
    const first = writeAll(stream, Buffer.concat([silence(0.2), tone(0.6)]));
    await p.waitFor('the audio', (peer) => peer.streams[0]!.bytes === first);
    stream.flush();
    await events.waitFor('the first final', (r) => r.finals.length === 1);
    expect(events.finals[0]!.text).toBe('I cast fireball.');
    expect(p.streams[0]!.finalizes).toBe(1);

    const second = writeAll(stream, tone(0.6));
    await stream.finish();
    expect(events.finals.map((u) => u.text)).toEqual(['I cast fireball.', 'Roll for damage.']);
    expect(events.closes).toEqual([{}]);
    expect(p.streams[0]).toMatchObject({
      bytes: first + second,
      finalizes: 2,
      closeStreams: 1,
      closed: { by: 'close-stream', code: 1000 },
    });
    // Writes after the end are ignored, not thrown.
    expect(() => stream.write(tone(0.1))).not.toThrow();
  });

  it('keeps a silent stream alive with KeepAlive through twice the idle timeout', async () => {
    const p = await peer({ idleTimeoutMs: 300 });
    p.script(['Still here.']);
    const events = new Recorder();
    const stream = await provider(p, { tuning: { keepAliveMs: 100 } }).open({}, events);
    streams.push(stream);

    const started = performance.now();
    // KeepAlives at about 100-150 ms: six of them span more than 600 ms of silence.
    await p.waitFor('six KeepAlives', (peer) => peer.streams[0]!.keepAlives >= 6);
    expect(performance.now() - started).toBeGreaterThan(600);
    expect(p.streams[0]!.closed).toBeNull();
    expect(p.streams).toHaveLength(1);

    writeAll(stream, Buffer.concat([tone(0.6), silence(0.5)]));
    await events.waitFor('a final', (r) => r.finals.length === 1);
    expect(events.finals[0]!.text).toBe('Still here.');
    expect(events.reconnects).toEqual([]);
    expect(events.closes).toEqual([]);
  });

  it('without KeepAlive the peer closes an idle stream with 1011, as Deepgram does, and the stream reconnects', async () => {
    const p = await peer({ idleTimeoutMs: 200 });
    const events = new Recorder();
    const stream = await provider(p, { tuning: { keepAliveMs: null } }).open({}, events);
    streams.push(stream);
    await events.waitFor('a reconnect', (r) => r.reconnects.length === 1);
    expect(p.streams[0]!.closed).toEqual({ by: 'idle', code: 1011 });
    expect(events.reconnects[0]!.reason).toMatch(/1011.*net0001/i);
    await p.waitFor('the second socket', (peer) => peer.streams.length === 2);
  });

  it('reconnects after a dropped socket mid-utterance: the utterance comes out once, no audio is lost', async () => {
    const p = await peer();
    p.script(['The door is locked.', 'I pick the lock with my thieves tools.']);
    const before = {
      open: await metric(speechStreamsOpen),
      errors: await metric(speechErrors),
      reconnects: await metric(speechReconnects),
    };
    const events = new Recorder();
    const stream = await provider(p).open({}, events);
    streams.push(stream);
    expect(await metric(speechStreamsOpen)).toBe(before.open + 1);

    let written = writeAll(stream, Buffer.concat([silence(0.6), tone(0.8), silence(0.6)]));
    await events.waitFor('the first final', (r) => r.finals.length === 1);
    written += writeAll(stream, Buffer.concat([silence(0.2), tone(0.5)]));
    await events.waitFor('an interim of the second utterance', (r) =>
      r.utterances.some((u) => u.utteranceId === 'u2'),
    );
    await p.waitFor('the audio so far', (peer) => peer.streams[0]!.bytes === written);
    p.dropAll();
    // Written while the stream is disconnected.
    written += writeAll(stream, Buffer.concat([tone(0.5), silence(0.6)]));

    await events.waitFor('the second final', (r) => r.finals.length === 2);
    expect(events.finals.map((u) => [u.utteranceId, u.text])).toEqual([
      ['u1', 'The door is locked.'],
      ['u2', 'I pick the lock with my thieves tools.'],
    ]);
    expect(events.reconnects).toHaveLength(1);
    expect(events.reconnects[0]!.reason).toMatch(/1006/);
    // Metrics: one lost connection, one reconnect, still one stream open until it finishes.
    expect(await metric(speechErrors)).toBe(before.errors + 1);
    expect(await metric(speechReconnects)).toBe(before.reconnects + 1);
    expect(await metric(speechStreamsOpen)).toBe(before.open + 1);
    await stream.finish();
    expect(await metric(speechStreamsOpen)).toBe(before.open);
    // The second socket got everything after the first final's window (the peer's final came
    // 400 ms into the silence: 1.8 s), the part sent before the drop included.
    expect(p.streams).toHaveLength(2);
    expect(p.streams[1]!.bytes).toBe(written - 1.8 * BYTES_PER_SECOND);
    // Offsets keep counting from the stream's first byte.
    expect(events.finals[1]!.startSeconds).toBeCloseTo(2.2, 1);
    expect(events.finals[1]!.endSeconds).toBeCloseTo(3.2, 1);
  });

  it('retries a 429 at the handshake and connects once a slot frees', async () => {
    const p = await peer({ maxStreams: 1 });
    p.script(['First table.', 'Second table.']);
    const holder = await provider(p).open({}, new Recorder());
    const events = new Recorder();
    const stream = await provider(p).open({}, events);
    streams.push(stream);
    await events.waitFor('a refused attempt', (r) => r.reconnects.length >= 1);
    expect(p.refusals).toContain(429);
    expect(events.reconnects[0]!.reason).toMatch(/429/);

    // Audio written while waiting for a slot is kept and sent once connected.
    const written = writeAll(stream, Buffer.concat([tone(0.6), silence(0.5)]));
    await holder.finish();
    await events.waitFor('a final', (r) => r.finals.length === 1);
    expect(events.finals[0]!.text).toBe('First table.');
    expect(p.streams.at(-1)!.bytes).toBe(written);
    expect(events.closes).toEqual([]);
  });

  it('rejects open() with a non-retryable error when Deepgram refuses the key', async () => {
    const p = await peer();
    const events = new Recorder();
    const openBefore = await metric(speechStreamsOpen);
    const errorsBefore = await metric(speechErrors);
    const err = await deepgramLiveProvider({ apiKey: 'wrong', baseUrl: p.url, model: 'nova-3' })
      .open({}, events)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(StreamingError);
    expect(err).toMatchObject({ message: 'Deepgram refused the API key', retryable: false, code: 401 });
    expect(p.refusals).toEqual([401]);
    expect(p.streams).toEqual([]);
    expect(events.closes).toEqual([]);
    // Nothing was opened, but the refusal is a provider error.
    expect(await metric(speechStreamsOpen)).toBe(openBefore);
    expect(await metric(speechErrors)).toBe(errorsBefore + 1);
  });

  it('ends the stream with a message for the user when Deepgram stays unreachable', async () => {
    const p = await peer();
    const url = p.url;
    await p.close();
    peers.splice(0);
    const events = new Recorder();
    const stream = await deepgramLiveProvider({
      apiKey: 'k',
      baseUrl: url,
      model: 'nova-3',
      tuning: { reconnectAttempts: 3, reconnectBaseDelayMs: 10 },
    }).open({}, events);
    expect(() => stream.write(tone(0.1))).not.toThrow();
    await events.waitFor('the end', (r) => r.closes.length === 1);
    const error = events.closes[0]!.error!;
    expect(error).toBeInstanceOf(StreamingError);
    expect(error.message).toMatch(/^Speech-to-text unavailable: Deepgram did not answer after 3 attempts/);
    expect(events.reconnects.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('is built from the config like the upload provider, and only with a key', async () => {
    const p = await peer();
    p.script(['From the config.']);
    const base: SpeechConfig = {
      DEEPGRAM_MODEL: 'nova-3',
      ASSEMBLYAI_POLL_INTERVAL_MS: 3000,
      SPEECH_HTTP_TIMEOUT_MS: 1000,
    };
    expect(createStreamingProvider(base)).toBeNull();
    expect(SpeechConfigSchema.properties.DEEPGRAM_MAX_STREAMS.default).toBe(50);
    const live = createStreamingProvider({ ...base, ...p.env() })!;
    expect(live.name).toBe('deepgram');
    const events = new Recorder();
    const stream = await live.open({ sampleRate: 16_000 }, events);
    streams.push(stream);
    writeAll(stream, Buffer.concat([tone(0.5), silence(0.5)]));
    await events.waitFor('a final', (r) => r.finals.length === 1);
    expect(events.finals[0]!.text).toBe('From the config.');
  });
});

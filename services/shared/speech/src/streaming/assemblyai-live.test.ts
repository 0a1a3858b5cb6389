import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startAssemblyAiLivePeer,
  type AssemblyAiLivePeer,
} from '../../../../../tests/peers/assemblyai-live.ts';
import { createStreamingProvider, type SpeechConfig } from '../index.ts';
import { assemblyAiLiveProvider } from './assemblyai-live.ts';
import { frames, Recorder, silence, tone } from './test-support.ts';
import { StreamingError, type SpeechStream } from './types.ts';

const BYTES_PER_SECOND = 32_000;

beforeAll(() => {
  // The SDK takes wss:// only and passes no TLS options to its socket; the peer's certificate is
  // self-signed, and Node 20 cannot add a CA at run time. This worker process talks to loopback only.
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
});

const peers: AssemblyAiLivePeer[] = [];
const streams: SpeechStream[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) s.abort();
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

async function peer(opts: Parameters<typeof startAssemblyAiLivePeer>[0] = {}): Promise<AssemblyAiLivePeer> {
  const p = await startAssemblyAiLivePeer(opts);
  peers.push(p);
  return p;
}

const provider = (p: AssemblyAiLivePeer, apiKey = p.apiKey) =>
  assemblyAiLiveProvider({ apiKey, websocketBaseUrl: p.url, tuning: { reconnectBaseDelayMs: 50 } });

function writeAll(stream: SpeechStream, pcm: Buffer): number {
  for (const frame of frames(pcm)) stream.write(frame);
  return pcm.length;
}

describe('AssemblyAI live adapter against the AssemblyAI live peer', () => {
  it('answers partial turns as interims and the formatted end of turn as the final, with offsets and keyterms', async () => {
    const p = await peer();
    p.script(['Welcome to Baldur’s Gate.', 'Mind the Zhentarim, Korvash.']);
    const events = new Recorder();
    const stream = await provider(p).open({ keyterms: ['Zhentarim', 'Korvash'] }, events);
    streams.push(stream);

    writeAll(stream, Buffer.concat([silence(0.6), tone(0.8), silence(0.6), tone(0.8), silence(0.6)]));
    await events.waitFor('two finals', (r) => r.finals.length === 2);

    expect(events.finals.map((u) => [u.utteranceId, u.text])).toEqual([
      ['u1', 'Welcome to Baldur’s Gate.'],
      ['u2', 'Mind the Zhentarim, Korvash.'],
    ]);
    expect(events.finals[0]!.startSeconds).toBeCloseTo(0.6, 1);
    expect(events.finals[0]!.endSeconds).toBeCloseTo(1.4, 1);
    expect(events.finals[1]!.startSeconds).toBeCloseTo(2.0, 1);
    expect(events.finals[1]!.endSeconds).toBeCloseTo(2.8, 1);
    // Partials (unformatted) and the unformatted end of turn are interims of the same utterance.
    const u1 = events.utterances.filter((u) => u.utteranceId === 'u1');
    expect(u1.map((u) => [u.text, u.isFinal])).toEqual([
      ['welcome', false],
      ['welcome to', false],
      ['welcome to baldurs', false],
      ['welcome to baldurs', false],
      ['welcome to baldurs gate', false],
      ['Welcome to Baldur’s Gate.', true],
    ]);

    const session = p.sessions[0]!;
    expect(session.keyterms).toEqual(['Zhentarim', 'Korvash']);
    expect(session.query).toMatchObject({
      sample_rate: '16000',
      encoding: 'pcm_s16le',
      format_turns: 'true',
    });
    // Discord's 20 ms frames go out in pieces AssemblyAI accepts (50 to 1000 ms).
    expect(session.chunkMs.every((ms) => ms >= 50 && ms <= 1000)).toBe(true);
  });

  it('flush() ends the turn (ForceEndpoint); finish() terminates and resolves once the session ended', async () => {
    const p = await peer();
    p.script(['I search the chest.', 'Anything inside?']);
    const events = new Recorder();
    const stream = await provider(p).open({}, events);

    const first = writeAll(stream, Buffer.concat([silence(0.2), tone(0.6)]));
    await p.waitFor('the audio', (peer) => peer.sessions[0]!.bytes === first);
    stream.flush();
    await events.waitFor('the first final', (r) => r.finals.length === 1);
    expect(events.finals[0]!.text).toBe('I search the chest.');

    const second = writeAll(stream, tone(0.6));
    await stream.finish();
    expect(events.finals.map((u) => u.text)).toEqual(['I search the chest.', 'Anything inside?']);
    expect(events.closes).toEqual([{}]);
    expect(p.sessions[0]).toMatchObject({
      bytes: first + second,
      forceEndpoints: 2,
      terminates: 1,
      closed: { by: 'terminate', code: 1000 },
    });
  });

  it('reconnects after a dropped socket mid-turn: the turn comes out once, no audio is lost', async () => {
    const p = await peer();
    p.script(['Roll initiative.', 'The dragon wakes and roars.']);
    const events = new Recorder();
    const stream = await provider(p).open({}, events);
    streams.push(stream);

    let written = writeAll(stream, Buffer.concat([silence(0.6), tone(0.8), silence(0.6)]));
    await events.waitFor('the first final', (r) => r.finals.length === 1);
    written += writeAll(stream, Buffer.concat([silence(0.2), tone(0.5)]));
    await events.waitFor('a partial of the second turn', (r) =>
      r.utterances.some((u) => u.utteranceId === 'u2'),
    );
    p.dropAll();
    written += writeAll(stream, Buffer.concat([tone(0.5), silence(0.6)]));

    await events.waitFor('the second final', (r) => r.finals.length === 2);
    expect(events.finals.map((u) => [u.utteranceId, u.text])).toEqual([
      ['u1', 'Roll initiative.'],
      ['u2', 'The dragon wakes and roars.'],
    ]);
    expect(events.reconnects).toHaveLength(1);
    // The new session got everything after the first final's last word (1.4 s).
    expect(p.sessions).toHaveLength(2);
    await p.waitFor(
      'the replayed audio',
      (peer) => peer.sessions[1]!.bytes === written - 1.4 * BYTES_PER_SECOND,
    );
    expect(events.finals[1]!.startSeconds).toBeCloseTo(2.2, 1);
  });

  it('retries when AssemblyAI refuses for too many concurrent sessions and connects once one ends', async () => {
    const p = await peer({ maxSessions: 1 });
    p.script(['Only one at a time.']);
    const holder = await provider(p).open({}, new Recorder());
    const events = new Recorder();
    const stream = await provider(p).open({}, events);
    streams.push(stream);
    await events.waitFor('a refused attempt', (r) => r.reconnects.length >= 1);
    expect(p.refusals).toContain(3009);
    expect(events.reconnects[0]!.reason).toMatch(/concurrent sessions/);

    const written = writeAll(stream, Buffer.concat([tone(0.6), silence(0.6)]));
    await holder.finish();
    await events.waitFor('a final', (r) => r.finals.length === 1);
    expect(events.finals[0]!.text).toBe('Only one at a time.');
    expect(p.sessions.at(-1)!.bytes).toBe(written);
  });

  it('rejects open() with a non-retryable error when AssemblyAI refuses the key', async () => {
    const p = await peer();
    const err = await provider(p, 'wrong')
      .open({}, new Recorder())
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(StreamingError);
    expect(err).toMatchObject({ message: 'AssemblyAI refused the API key', retryable: false, code: 1008 });
    expect(p.refusals).toEqual([1008]);
    expect(p.sessions).toEqual([]);
  });

  it('is built from the config when only the AssemblyAI key is set', async () => {
    const p = await peer();
    p.script(['Configured.']);
    const config: SpeechConfig = {
      DEEPGRAM_MODEL: 'nova-3',
      ASSEMBLYAI_POLL_INTERVAL_MS: 3000,
      SPEECH_HTTP_TIMEOUT_MS: 1000,
      ...p.env(),
    };
    const live = createStreamingProvider(config)!;
    expect(live.name).toBe('assemblyai');
    const events = new Recorder();
    const stream = await live.open({}, events);
    streams.push(stream);
    writeAll(stream, Buffer.concat([tone(0.5), silence(0.5)]));
    await events.waitFor('a final', (r) => r.finals.length === 1);
    expect(events.finals[0]!.text).toBe('Configured.');
  });
});

import { randomUUID } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  LIVE_STREAM,
  LiveSessionEndSchema,
  LiveSessionStartSchema,
  LiveUtteranceSchema,
  liveMsgId,
  liveStream,
  liveSubject,
  USAGE_EVENTS_STREAM,
  usageEventsStream,
  type LiveSessionEnd,
  type SpeechStreamRecorded,
  type LiveUtterance,
} from '@chronicler/contracts';
import { MemoryBus, createLogger, type Bus, type Consumer } from '@chronicler/kit';
import {
  StreamingError,
  type SpeechStream,
  type StreamGate,
  type StreamLease,
  type StreamingEvents,
  type StreamingOptions,
  type StreamingProvider,
  type StreamingProviderName,
} from '@chronicler/speech';
import { Value } from '@sinclair/typebox/value';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OPUS_SILENCE_FRAME } from './opus.ts';
import { oggPackets, parseOggPages } from './ogg-writer.ts';
import { monoToStereo } from './resample.ts';
import type { LiveNotice } from './session-lines.ts';
import type { LiveSessionOptions } from './session-options.ts';
import { LiveSession } from './session.ts';
import type { Speaker } from './speaker-channel.ts';
import { encodeDiscordOpus } from './synth.ts';

// A test double of the streaming provider interface: the session's own logic (routing,
// offsets, ordering, retries, ending) is what is under test here; the real adapters are
// tested against their protocol peers in @chronicler/speech.
class FakeStream implements SpeechStream {
  readonly provider = 'deepgram' as const;
  samples = 0;
  flushes = 0;
  state: 'open' | 'finished' | 'aborted' | 'failed' = 'open';
  private settle!: (state: string) => void;
  /** Resolves with how the stream ended: finished, aborted or failed. */
  readonly ended = new Promise<string>((resolve) => (this.settle = resolve));
  /** Run when `finish()` is called, before the stream closes (e.g. to send a last final). */
  onFinish: (() => void) | null = null;

  constructor(
    readonly options: StreamingOptions,
    private readonly events: StreamingEvents,
  ) {}

  write(pcm: Buffer): void {
    if (this.state === 'open') this.samples += pcm.length / 2;
  }
  flush(): void {
    this.flushes++;
  }
  async finish(): Promise<void> {
    this.onFinish?.();
    this.state = 'finished';
    this.settle(this.state);
    this.events.onClose({});
  }
  abort(): void {
    this.state = 'aborted';
    this.settle(this.state);
  }
  say(id: string, text: string, startSeconds: number, endSeconds: number, isFinal: boolean): void {
    this.events.onUtterance({ utteranceId: id, text, startSeconds, endSeconds, isFinal });
  }
  failRetryable(message: string): void {
    this.state = 'failed';
    this.settle(this.state);
    this.events.onClose({ error: new StreamingError(message, true) });
  }
  fail(message: string): void {
    this.state = 'failed';
    this.settle(this.state);
    this.events.onClose({ error: new StreamingError(message, false) });
  }
}

class FakeProvider implements StreamingProvider {
  readonly name = 'deepgram' as const;
  readonly streams: FakeStream[] = [];
  private readonly changes = new EventEmitter();

  async open(options: StreamingOptions, events: StreamingEvents): Promise<SpeechStream> {
    const s = new FakeStream(options, events);
    this.streams.push(s);
    this.changes.emit('open');
    return s;
  }

  async opened(n: number): Promise<FakeStream> {
    while (this.streams.length < n) await once(this.changes, 'open');
    return this.streams[n - 1]!;
  }
}

class CountingGate implements StreamGate {
  open = 0;
  denied = 0;
  readonly changes = new EventEmitter();
  constructor(private readonly limit: number) {}
  async acquire(_provider: StreamingProviderName): Promise<StreamLease | null> {
    if (this.open >= this.limit) {
      this.denied++;
      this.changes.emit('denied');
      return null;
    }
    this.open++;
    let released = false;
    return {
      release: async () => {
        if (!released) this.open--;
        released = true;
      },
    };
  }
  async counts(): Promise<Record<StreamingProviderName, number>> {
    return { deepgram: this.open, assemblyai: 0, openai: 0 };
  }
}

/** Everything durable the session published, in stream order, and the interims. */
class Observer {
  readonly durable: { kind: string; msgId?: string; payload: unknown }[] = [];
  readonly interims: LiveUtterance[] = [];
  private readonly changes = new EventEmitter();
  private consumer: Consumer | null = null;

  async attach(bus: Bus): Promise<void> {
    await bus.ensureStream(liveStream);
    this.consumer = await bus.consume({ stream: LIVE_STREAM, durable: 'observer' }, async (payload, ctx) => {
      this.durable.push({ kind: ctx.subject.split('.').at(-1)!, msgId: ctx.msgId, payload });
      this.changes.emit('change');
    });
    bus.subscribe('live.*.interim', (payload) => {
      this.interims.push(payload as LiveUtterance);
      this.changes.emit('change');
    });
  }

  async until(check: () => boolean): Promise<void> {
    while (!check()) await once(this.changes, 'change');
  }

  /** Waits until the end message has been delivered (everything before it has been too). */
  async ended(): Promise<void> {
    await this.until(() => this.durable.some((d) => d.kind === 'end'));
  }

  finals(): LiveUtterance[] {
    return this.durable.filter((d) => d.kind === 'final').map((d) => d.payload as LiveUtterance);
  }

  async stop(): Promise<void> {
    await this.consumer?.stop();
  }
}

const TONE: Buffer[] = (() => {
  const n = 48_000;
  const mono = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++)
    mono.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 300 * i) / 48_000)), i * 2);
  return encodeDiscordOpus(monoToStereo(mono));
})();

const alice = { key: '1001', displayName: 'Alice', userId: '1001' };
const bob = { key: '1002', displayName: 'Bob', userId: '1002' };

let bus: MemoryBus;
let observer: Observer;
let dir: string;
let clock: number;
const logger = createLogger('voice-bot-test', { level: 'silent' });

beforeEach(async () => {
  bus = new MemoryBus({ prefix: `vb${randomUUID().slice(0, 8)}`, name: 'voice-bot-test' });
  observer = new Observer();
  await observer.attach(bus);
  dir = await mkdtemp(path.join(os.tmpdir(), 'live-session-'));
  clock = Date.parse('2026-11-23T20:00:00.000Z');
});

afterEach(async () => {
  await observer.stop();
  await bus.close();
  await rm(dir, { recursive: true, force: true });
});

function session(overrides: Partial<LiveSessionOptions> = {}): LiveSession {
  return new LiveSession({
    bus,
    transcriptId: randomUUID(),
    ownerId: 'owner-1',
    name: 'Session 12',
    origin: 'replay',
    provider: new FakeProvider(),
    gate: null,
    keyterms: ['Khazad', 'Eldrin'],
    recordingsDir: dir,
    logger,
    now: () => clock,
    retry: { initialMs: 2, maxMs: 10 },
    ...overrides,
  });
}

/** Advances the clock by `seconds` of packets, pushing one 20 ms packet as each ends. */
function speak(s: LiveSession, speaker: Speaker, seconds: number): void {
  const n = Math.round(seconds / 0.02);
  for (let i = 0; i < n; i++) {
    clock += 20;
    s.pushOpus(speaker, TONE[i % TONE.length]!);
  }
}

const silence = (seconds: number): void => {
  clock += seconds * 1000;
};

describe('LiveSession', () => {
  it('publishes the start first, interims on core, finals durably with session-time offsets across a gap', async () => {
    const provider = new FakeProvider();
    const s = session({ provider });
    await s.start();
    silence(2);
    speak(s, alice, 1);
    const stream = await provider.opened(1);
    expect(stream.options).toMatchObject({
      sampleRate: 16_000,
      keyterms: ['Khazad', 'Eldrin'],
      label: `${s.transcriptId}:${alice.key}`,
    });
    s.speakerStopped(alice.key);
    expect(stream.flushes).toBe(1);
    silence(5);
    speak(s, alice, 1);
    // Stream audio: [0, 1) s was said at session [2, 3) s, [1, 2) s at [8, 9) s.
    stream.say('u1', 'The dragon', 0.2, 0.6, false);
    stream.say('u1', 'The dragon sleeps', 0.2, 0.9, true);
    stream.say('u2', 'beneath the mountain', 0.5, 1.5, true);
    stream.say('u3', '   ', 1.6, 1.7, true);
    const end = await s.end();
    await observer.ended();

    expect(stream.samples).toBe(32_000);
    expect(stream.state).toBe('finished');
    const kinds = observer.durable.map((d) => d.kind);
    expect(kinds).toEqual(['start', 'final', 'final', 'end']);
    const [start] = observer.durable;
    expect(Value.Check(LiveSessionStartSchema, start!.payload)).toBe(true);
    expect(start!.msgId).toBe(liveMsgId.start(s.transcriptId));
    expect(start!.payload).toMatchObject({
      transcript_id: s.transcriptId,
      owner_id: 'owner-1',
      name: 'Session 12',
      origin: 'replay',
      provider: 'deepgram',
      started_at: '2026-11-23T20:00:00.000Z',
    });

    await observer.until(() => observer.interims.length === 1);
    const [interim] = observer.interims;
    expect(Value.Check(LiveUtteranceSchema, interim)).toBe(true);
    expect(interim).toMatchObject({
      utterance_id: `${alice.key}:0:u1`,
      text: 'The dragon',
      speaker_tag: 'Alice',
      speaker_info: { displayName: 'Alice', user_id: '1001' },
      start_seconds: 2.2,
      end_seconds: 2.6,
      interim_count: 1,
    });

    const finals = observer.finals();
    for (const f of finals) expect(Value.Check(LiveUtteranceSchema, f)).toBe(true);
    expect(finals.map((f) => [f.utterance_id, f.text, f.start_seconds, f.end_seconds])).toEqual([
      [`${alice.key}:0:u1`, 'The dragon sleeps', 2.2, 2.9],
      // Starts in the first run, ends in the second: the gap is between.
      [`${alice.key}:0:u2`, 'beneath the mountain', 2.5, 8.5],
    ]);
    expect(finals[0]!.interim_count).toBe(1);
    expect(observer.durable.filter((d) => d.kind === 'final').map((d) => d.msgId)).toEqual(
      finals.map((f) => liveMsgId.final(s.transcriptId, f.utterance_id)),
    );

    const endMsg = observer.durable.at(-1)!;
    expect(endMsg.msgId).toBe(liveMsgId.end(s.transcriptId));
    expect(Value.Check(LiveSessionEndSchema, endMsg.payload)).toBe(true);
    expect(endMsg.payload).toEqual(end);
    expect(end).toMatchObject({ final_count: 2, interim_count: 1, ended_at: '2026-11-23T20:00:09.000Z' });
    expect(end.error).toBeUndefined();
    await expect(s.done).resolves.toEqual(end);
  });

  it('keeps finals in order and loses none while the bus refuses them, journaling each first', async () => {
    const tid = randomUUID();
    let refuse = true;
    let refused = 0;
    const refusals = new EventEmitter();
    const flaky = new Proxy(bus, {
      get(target, prop) {
        if (prop === 'publishDurable') {
          return async (subject: string, payload: unknown, opts?: { msgId?: string }) => {
            if (refuse && subject === liveSubject.final(tid)) {
              refused++;
              refusals.emit('refused');
              throw new Error('nats: disconnected');
            }
            return target.publishDurable(subject, payload, opts);
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const provider = new FakeProvider();
    const s = session({ bus: flaky, provider, transcriptId: tid });
    await s.start();
    speak(s, alice, 0.5);
    speak(s, bob, 0.5);
    const [a, b] = [await provider.opened(1), await provider.opened(2)];
    for (let i = 0; i < 10; i++) (i % 2 ? b : a).say(`u${i}`, `line ${i}`, i * 0.01, i * 0.01 + 0.005, true);

    // Every final is on disk before the bus has any of them.
    const journal = path.join(dir, tid, 'finals.jsonl');
    while (refused < 5) await once(refusals, 'refused');
    // The bus still refuses while the journal fills (its writes may trail the first refusals
    // on a busy machine): all ten get there, none reaches the bus.
    const journaledLines = async () => (await readFile(journal, 'utf8').catch(() => '')).trim().split('\n');
    const deadline = Date.now() + 10_000;
    while ((await journaledLines()).length < 10 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(refuse).toBe(true);
    const lines = await journaledLines();
    expect(lines).toHaveLength(10);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      subject: liveSubject.final(tid),
      msg_id: liveMsgId.final(tid, `${alice.key}:0:u0`),
      payload: { text: 'line 0' },
    });
    expect(observer.finals()).toHaveLength(0);

    const ended = s.end();
    refuse = false;
    const end = await ended;
    await observer.ended();
    expect(end.final_count).toBe(10);
    expect(observer.finals().map((f) => f.text)).toEqual(Array.from({ length: 10 }, (_, i) => `line ${i}`));
    expect(observer.durable.at(-1)!.kind).toBe('end');
    const journaled = (await readFile(journal, 'utf8')).trim().split('\n');
    expect(journaled.map((l) => (JSON.parse(l) as { payload: LiveUtterance }).payload.text)).toEqual(
      observer.finals().map((f) => f.text),
    );
  });

  it('ends the session with the provider error and finishes the other streams', async () => {
    const provider = new FakeProvider();
    const gate = new CountingGate(10);
    const s = session({ provider, gate });
    await s.start();
    speak(s, alice, 0.5);
    speak(s, bob, 0.5);
    const a = await provider.opened(1);
    const b = await provider.opened(2);
    b.onFinish = () => b.say('last', 'and then we ran', 0.1, 0.4, true);
    a.fail('Deepgram stayed unreachable after 5 attempts');
    const end = await s.done;
    await observer.ended();
    expect(end.error).toBe('Deepgram stayed unreachable after 5 attempts');
    expect(end.final_count).toBe(1);
    expect(b.state).toBe('finished');
    expect(gate.open).toBe(0);
    expect(observer.durable.map((d) => d.kind)).toEqual(['start', 'final', 'end']);
    expect(observer.durable.at(-1)!.payload).toMatchObject({
      error: 'Deepgram stayed unreachable after 5 attempts',
    });
    // Audio after the end is ignored, and ending again gives the same answer.
    speak(s, alice, 0.1);
    await expect(s.end()).resolves.toEqual(end);
  });

  it('aborts a stream that does not deliver its last finals in time', async () => {
    const provider = new FakeProvider();
    const s = session({ provider, finishTimeoutMs: 20 });
    await s.start();
    speak(s, alice, 0.2);
    const stream = await provider.opened(1);
    stream.finish = () => new Promise<void>(() => {});
    const end = await s.end();
    await observer.ended();
    expect(stream.state).toBe('aborted');
    expect(end.final_count).toBe(0);
  });

  it('does not wait past the timeout for a stream that never opens, and closes it if it opens later', async () => {
    const provider = new FakeProvider();
    let letOpen!: () => void;
    const gate = new Promise<void>((resolve) => (letOpen = resolve));
    const slow: StreamingProvider = {
      name: 'deepgram',
      open: async (options, events) => {
        await gate;
        return provider.open(options, events);
      },
    };
    const s = session({ provider: slow, finishTimeoutMs: 20 });
    await s.start();
    speak(s, alice, 0.2);
    const end = await s.end();
    await observer.ended();
    expect(end.final_count).toBe(0);
    letOpen();
    const late = await provider.opened(1);
    await expect(late.ended).resolves.toBe('aborted');
  });

  it('records each speaker to an Ogg file that grows as audio arrives and keeps session time', async () => {
    const s = session();
    await s.start();
    silence(2);
    speak(s, alice, 1);
    await s.flushRecordings();
    const file = path.join(dir, s.transcriptId, `${alice.key}.ogg`);
    const first = (await stat(file)).size;
    let pages = parseOggPages(await readFile(file));
    // 2 s of silence then 1 s of speech, less the newest packet held back for the EOS page.
    expect(pages.at(-1)!.granule).toBe(BigInt(48_000 * 3 - 960));
    silence(3);
    speak(s, alice, 1);
    s.speakerStopped(alice.key);
    await s.flushRecordings();
    expect((await stat(file)).size).toBeGreaterThan(first);
    await s.end();
    await observer.ended();
    pages = parseOggPages(await readFile(file));
    expect(pages.every((p) => p.crcOk)).toBe(true);
    expect(pages.at(-1)!.granule).toBe(BigInt(48_000 * 7));
    const packets = oggPackets(pages).slice(2);
    expect(packets.filter((p) => p.data.equals(OPUS_SILENCE_FRAME))).toHaveLength(250);
    expect(packets).toHaveLength(350);
    expect(s.stats().speakers[0]).toMatchObject({
      key: alice.key,
      packets: 100,
      audioSeconds: 2,
      streams: 1,
    });
  });

  it('records but transcribes nothing without a provider, and still starts and ends', async () => {
    const s = session({ provider: null });
    await s.start();
    speak(s, alice, 0.5);
    const end = await s.end();
    await observer.ended();
    expect(end).toMatchObject({ final_count: 0, interim_count: 0 });
    expect(observer.durable.map((d) => d.kind)).toEqual(['start', 'end']);
    expect(observer.durable[0]!.payload).not.toHaveProperty('provider');
    const pages = parseOggPages(await readFile(path.join(dir, s.transcriptId, `${alice.key}.ogg`)));
    expect(pages.at(-1)!.granule).toBe(BigInt(48_000 / 2));
  });

  it('queues a speaker the gate refuses, says so once, and transcribes their kept audio when a stream frees', async () => {
    const provider = new FakeProvider();
    const gate = new CountingGate(1);
    const notices: LiveNotice[] = [];
    const s = session({ provider, gate, tickMs: 5, onNotice: (n) => notices.push(n) });
    await s.start();
    speak(s, alice, 0.2);
    await provider.opened(1);
    const denied = once(gate.changes, 'denied');
    speak(s, bob, 0.2);
    await denied;
    s.speakerStopped(bob.key);
    silence(1);
    speak(s, bob, 0.2);
    expect(provider.streams).toHaveLength(1);
    expect(notices).toEqual([{ kind: 'queued', speaker: bob }]);
    // Alice's stream closes: the next tick gives its slot to Bob, with everything he said.
    s.speakerStopped(alice.key);
    await provider.streams[0]!.finish();
    const bobStream = await provider.opened(2);
    expect(bobStream.options.label).toBe(`${s.transcriptId}:${bob.key}`);
    expect(bobStream.samples).toBe(0.4 * 16_000);
    bobStream.say('b1', 'I waited my turn', 0.05, 0.15, false);
    bobStream.say('b1', 'I waited my turn', 0.05, 0.15, true);
    bobStream.say('b2', 'and here I am', 0.25, 0.35, true);
    await s.end();
    await observer.ended();
    expect(gate.open).toBe(0);
    expect(notices).toHaveLength(1);
    // Offsets map through Bob's own timeline: his second turn began 1 s after his first ended.
    expect(observer.finals().map((f) => [f.speaker_tag, f.text, f.start_seconds])).toEqual([
      ['Bob', 'I waited my turn', 0.25],
      ['Bob', 'and here I am', 1.45],
    ]);
    const bobStats = s.stats().speakers.find((x) => x.key === bob.key)!;
    expect(bobStats.streamedSeconds).toBeCloseTo(0.4, 5);
    expect(bobStats.audioSeconds).toBeCloseTo(0.4, 5);
  });

  it('marks a gap for a speaker still queued when the session ends', async () => {
    const provider = new FakeProvider();
    const gate = new CountingGate(1);
    const s = session({ provider, gate });
    await s.start();
    speak(s, alice, 0.2);
    await provider.opened(1);
    const denied = once(gate.changes, 'denied');
    silence(3);
    speak(s, bob, 1);
    await denied;
    await s.end();
    await observer.ended();
    expect(observer.finals().map((f) => [f.speaker_tag, f.text, f.start_seconds, f.end_seconds])).toEqual([
      [
        'Bob',
        '[transcription unavailable from 0:00:03 to 0:00:04: every transcription stream was busy; the audio is recorded]',
        3.2,
        4.2,
      ],
    ]);
  });

  it('keeps a failed speaker local: the others go on, the gap is marked, a later stream closes it', async () => {
    const provider = new FakeProvider();
    const gate = new CountingGate(10);
    const notices: LiveNotice[] = [];
    const s = session({
      provider,
      gate,
      streamPolicy: { retrySeconds: 5 },
      onNotice: (n) => notices.push(n),
    });
    const carol = { key: '1003', displayName: 'Carol', userId: '1003' };
    await s.start();
    speak(s, alice, 0.5);
    speak(s, bob, 0.5);
    speak(s, carol, 0.5);
    const [a, b, c] = [await provider.opened(1), await provider.opened(2), await provider.opened(3)];
    b.say('b1', 'before it broke', 0.1, 0.3, true);
    // Bob's provider stream gives up after its retries (a 500 on every reconnect).
    b.failRetryable(
      'Speech-to-text unavailable: Deepgram did not answer after 6 attempts (Deepgram answered 500)',
    );
    speak(s, bob, 1); // recorded only: his next stream is tried 5 s after the failure
    a.say('a1', 'Alice goes on', 0.1, 0.4, true);
    c.say('c1', 'Carol too', 0.1, 0.4, true);
    expect(provider.streams).toHaveLength(3);
    silence(5);
    speak(s, bob, 0.5);
    const again = await provider.opened(4);
    again.say('b2', 'back again', 0.1, 0.4, true);
    const end = await s.end();
    await observer.ended();
    expect(end.error).toBeUndefined();
    expect(gate.open).toBe(0);
    const lines = observer.finals().map((f) => [f.speaker_tag, f.text]);
    expect(lines).toEqual([
      ['Bob', 'before it broke'],
      ['Alice', 'Alice goes on'],
      ['Carol', 'Carol too'],
      [
        'Bob',
        '[transcription unavailable from 0:00:00 to 0:00:07: the speech service failed; the audio is recorded]',
      ],
      ['Bob', 'back again'],
    ]);
    expect(notices.map((n) => [n.kind, n.speaker.key])).toEqual([['failed', bob.key]]);
    // Bob's recording has all of it: 0.5 + 1 + 0.5 s of speech.
    expect(s.stats().speakers.find((x) => x.key === bob.key)!.audioSeconds).toBeCloseTo(2, 5);
  });

  it('releases a stream after a stretch of silence, opens another on speech, and bills each stream', async () => {
    const provider = new FakeProvider();
    const gate = new CountingGate(10);
    const usage: SpeechStreamRecorded[] = [];
    await bus.ensureStream(usageEventsStream);
    const consumer = await bus.consume({ stream: USAGE_EVENTS_STREAM, durable: 'usage' }, async (p) => {
      usage.push(p as SpeechStreamRecorded);
    });
    const s = session({ provider, gate, tickMs: 5, streamPolicy: { idleSeconds: 30 } });
    await s.start();
    speak(s, alice, 1);
    const first = await provider.opened(1);
    s.speakerStopped(alice.key);
    silence(31);
    await first.ended;
    expect(gate.open).toBe(0);
    speak(s, alice, 1);
    await provider.opened(2);
    silence(2);
    await s.end();
    await observer.ended();
    while (usage.length < 2) await new Promise((r) => setTimeout(r, 5));
    await consumer.stop();
    expect(usage.map((u) => [u.record_id, u.speaker_key, u.provider, u.owner_id])).toEqual([
      [`stream:${s.transcriptId}:${alice.key}:0`, alice.key, 'deepgram', 'owner-1'],
      [`stream:${s.transcriptId}:${alice.key}:1`, alice.key, 'deepgram', 'owner-1'],
    ]);
    // Open from when the provider answered (here, once the second of speech was pushed) to the
    // idle release after 30 s of silence, then to the end 2 s after the second speech.
    expect(usage[0]!.seconds).toBeGreaterThanOrEqual(30);
    expect(usage[0]!.seconds).toBeLessThan(32);
    expect(usage[1]!.seconds).toBeCloseTo(2, 0);
    expect(s.stats().speakers[0]!.streamSeconds).toBeCloseTo(usage[0]!.seconds + usage[1]!.seconds, 3);
  });

  it('records but does not transcribe speakers over the limit, and says so', async () => {
    const provider = new FakeProvider();
    const notices: LiveNotice[] = [];
    const s = session({ provider, maxSpeakers: 1, onNotice: (n) => notices.push(n) });
    await s.start();
    speak(s, alice, 0.2);
    speak(s, bob, 0.2);
    await provider.opened(1);
    await s.end();
    await observer.ended();
    expect(provider.streams).toHaveLength(1);
    expect(notices).toEqual([{ kind: 'speaker-limit', speaker: bob, limit: 1 }]);
    expect(s.stats().speakers.find((x) => x.key === bob.key)).toMatchObject({
      audioSeconds: 0.2,
      streams: 0,
    });
  });

  it('opens a new stream with a new index when the provider closes one cleanly', async () => {
    const provider = new FakeProvider();
    const s = session({ provider });
    await s.start();
    speak(s, alice, 0.5);
    const first = await provider.opened(1);
    first.say('x', 'first words', 0.1, 0.3, true);
    await first.finish();
    silence(2);
    speak(s, alice, 0.5);
    const second = await provider.opened(2);
    second.say('x', 'second words', 0.1, 0.3, true);
    await s.end();
    await observer.ended();
    expect(observer.finals().map((f) => [f.utterance_id, f.start_seconds])).toEqual([
      [`${alice.key}:0:x`, 0.1],
      [`${alice.key}:1:x`, 2.6],
    ]);
  });

  it('numbers a speaker without a name and sends no speaker_info', async () => {
    const provider = new FakeProvider();
    const s = session({ provider });
    await s.start();
    speak(s, { key: 'ssrc-4242', displayName: ' ' }, 0.2);
    (await provider.opened(1)).say('a', 'who said that', 0, 0.2, true);
    await s.end();
    await observer.ended();
    const [f] = observer.finals();
    expect(Value.Check(LiveUtteranceSchema, f)).toBe(true);
    expect(f!.speaker_tag).toBe(1);
    expect(f).not.toHaveProperty('speaker_info');
  });

  it('publishes a repeated final once, so final_count matches what the transcript stores', async () => {
    const provider = new FakeProvider();
    const s = session({ provider });
    await s.start();
    speak(s, alice, 0.2);
    const stream = await provider.opened(1);
    stream.say('a', 'hello', 0, 0.2, true);
    stream.say('a', 'hello', 0, 0.2, true);
    const end: LiveSessionEnd = await s.end();
    await observer.ended();
    expect(end.final_count).toBe(1);
    expect(observer.finals()).toHaveLength(1);
  });

  it('counts undecodable packets and keeps them out of the recording', async () => {
    const s = session();
    await s.start();
    speak(s, alice, 0.2);
    clock += 20;
    s.pushOpus(alice, Buffer.from([0x03, 0x00]));
    await s.end();
    await observer.ended();
    expect(s.stats().speakers[0]).toMatchObject({ packets: 11, undecodable: 1 });
    const pages = parseOggPages(await readFile(path.join(dir, s.transcriptId, `${alice.key}.ogg`)));
    expect(oggPackets(pages).slice(2)).toHaveLength(10);
  });

  it('takes 16 kHz mono PCM, streaming it as is and recording it as Opus', async () => {
    const provider = new FakeProvider();
    const s = session({ provider });
    await s.start();
    for (let i = 0; i < 25; i++) {
      clock += 20;
      s.pushPcm(alice, Buffer.alloc(320 * 2, 1), 's16le-16k-mono');
    }
    const stream = await provider.opened(1);
    await s.end();
    await observer.ended();
    expect(stream.samples).toBe(25 * 320);
    const pages = parseOggPages(await readFile(path.join(dir, s.transcriptId, `${alice.key}.ogg`)));
    expect(pages.at(-1)!.granule).toBe(BigInt(25 * 960));
  });
});

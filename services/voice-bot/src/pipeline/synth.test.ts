import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LIVE_STREAM, LiveUtteranceSchema, liveStream, type LiveUtterance } from '@chronicler/contracts';
import { MemoryBus, createLogger } from '@chronicler/kit';
import type { SpeechStream, StreamingEvents, StreamingOptions, StreamingProvider } from '@chronicler/speech';
import { Value } from '@sinclair/typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseOggPages } from './ogg-writer.ts';
import { LiveSession } from './session.ts';
import {
  ESPEAK_PATH,
  parseWav,
  playTurns,
  scaledClock,
  speak,
  synthesizeOpus,
  synthesizeTurns,
} from './synth.ts';

const hasEspeak = existsSync(ESPEAK_PATH);
const hasFfprobe = existsSync('/usr/bin/ffprobe');

function wavHeader(dataBytes: number, rate: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(0x7fffffff, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

function rms(pcm: Buffer): number {
  let sum = 0;
  for (let i = 0; i < pcm.length / 2; i++) sum += pcm.readInt16LE(i * 2) ** 2;
  return Math.sqrt(sum / Math.max(1, pcm.length / 2));
}

describe('parseWav', () => {
  it('reads a WAV whose sizes were never filled in (espeak-ng writing to a pipe)', () => {
    const data = Buffer.alloc(1001, 7);
    const wav = parseWav(Buffer.concat([wavHeader(0x7ffff000, 22_050), data]));
    expect(wav).toMatchObject({ sampleRate: 22_050, channels: 1 });
    // A trailing half sample is dropped.
    expect(wav.data.length).toBe(1000);
  });

  it('refuses what is not a PCM WAV', () => {
    expect(() => parseWav(Buffer.from('OggS and more bytes'))).toThrow('Not a WAV file');
  });
});

describe.skipIf(!hasEspeak)('speech synthesis (skipped without espeak-ng)', () => {
  it('speaks a line as mono PCM and as 20 ms Opus packets', async () => {
    const pcm = await speak('Roll for initiative.', { voice: 'en-us' });
    expect(pcm.channels).toBe(1);
    const seconds = pcm.data.length / 2 / pcm.sampleRate;
    expect(seconds).toBeGreaterThan(0.5);
    expect(rms(pcm.data)).toBeGreaterThan(500);
    const opus = await synthesizeOpus('Roll for initiative.', { voice: 'en-us' });
    expect(opus.seconds).toBeCloseTo(seconds, 1);
  });

  it('gives speakers different voices', async () => {
    const [a, b] = await Promise.all([
      speak('The tavern is quiet tonight.', { voice: 'en-us' }),
      speak('The tavern is quiet tonight.', { voice: 'en+f3' }),
    ]);
    expect(a.data.equals(b.data)).toBe(false);
  });

  it('reports an espeak-ng that cannot be run', async () => {
    await expect(speak('x', { espeakPath: '/nonexistent/espeak-ng' })).rejects.toThrow(
      'espeak-ng could not be run',
    );
  });
});

// Stands in for a provider that hears speech: each flush (the speaker stopped) turns what
// arrived since the previous one into a final spanning it, and keeps the audio's loudness so
// the test can tell real decoded speech from silence.
class SegmentingProvider implements StreamingProvider {
  readonly name = 'assemblyai' as const;
  readonly loudness: number[] = [];

  async open(_options: StreamingOptions, events: StreamingEvents): Promise<SpeechStream> {
    let samples = 0;
    let segStart = 0;
    let segment: Buffer[] = [];
    let n = 0;
    const loudness = this.loudness;
    return {
      provider: 'assemblyai',
      write(pcm) {
        samples += pcm.length / 2;
        segment.push(pcm);
      },
      flush() {
        if (samples === segStart) return;
        loudness.push(rms(Buffer.concat(segment)));
        events.onUtterance({
          utteranceId: `seg${n++}`,
          text: `segment ${n}`,
          isFinal: true,
          startSeconds: segStart / 16_000,
          endSeconds: samples / 16_000,
        });
        segStart = samples;
        segment = [];
      },
      async finish() {
        events.onClose({});
      },
      abort() {},
    };
  }
}

describe.skipIf(!hasEspeak)('playTurns into a live session (skipped without espeak-ng)', () => {
  let dir: string;
  let bus: MemoryBus;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'play-turns-'));
    bus = new MemoryBus({ prefix: `pt${randomUUID().slice(0, 8)}`, name: 'voice-bot-test' });
  });
  afterAll(async () => {
    await bus.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('puts each turn on the bus at the session time it was spoken, and records each speaker', async () => {
    const speed = 4;
    const clock = scaledClock(speed);
    const provider = new SegmentingProvider();
    await bus.ensureStream(liveStream);
    const finals: LiveUtterance[] = [];
    let ended!: () => void;
    const endSeen = new Promise<void>((resolve) => (ended = resolve));
    const consumer = await bus.consume({ stream: LIVE_STREAM, durable: 'play' }, async (payload, ctx) => {
      if (ctx.subject.endsWith('.final')) finals.push(payload as LiveUtterance);
      if (ctx.subject.endsWith('.end')) ended();
    });
    const gm = { key: 'gm', displayName: 'Game Master' };
    const rogue = { key: 'rogue', displayName: 'Vex' };
    const turns = await synthesizeTurns([
      { speaker: gm, text: 'You enter a dark cave. Water drips from the ceiling.' },
      { speaker: rogue, text: 'I check the floor for traps.' },
      { speaker: gm, text: 'Roll for perception.' },
    ]);
    expect(new Set(turns.map((t) => t.voice)).size).toBe(2);
    const session = new LiveSession({
      bus,
      transcriptId: randomUUID(),
      ownerId: 'owner-1',
      origin: 'replay',
      provider,
      gate: null,
      keyterms: [],
      recordingsDir: dir,
      logger: createLogger('voice-bot-test', { level: 'silent' }),
      now: clock,
    });
    const startedAt = clock();
    await session.start();
    const played = await playTurns(session, turns, { speed, pauseSeconds: 1 });
    const end = await session.end();
    // The session's clock when it had ended: no recording can reach past it.
    const endedSeconds = (clock() - startedAt) / 1000;
    await endSeen;
    await consumer.stop();

    expect(end.final_count).toBe(3);
    expect(finals.map((f) => f.speaker_tag)).toEqual(['Game Master', 'Vex', 'Game Master']);
    expect(finals.map((f) => f.utterance_id)).toEqual(['gm:0:seg0', 'rogue:0:seg0', 'gm:0:seg1']);
    for (const f of finals) expect(Value.Check(LiveUtteranceSchema, f)).toBe(true);
    // Each final sits at the session time its turn was played: after the turn before it ended
    // and before the next one started (bounds of behaviour, not of timer jitter, so a busy
    // machine that plays late still passes).
    finals.forEach((f, i) => {
      expect(f.start_seconds).toBeGreaterThanOrEqual(i === 0 ? 0 : played[i - 1]!.endSeconds);
      expect(f.end_seconds).toBeGreaterThan(f.start_seconds);
      expect(f.start_seconds).toBeLessThan(played[i + 1]?.startSeconds ?? Number.POSITIVE_INFINITY);
    });
    // The third line comes after the gap, not right after the first (stream time would say so).
    expect(finals[2]!.start_seconds).toBeGreaterThan(finals[1]!.end_seconds);
    expect(provider.loudness.every((l) => l > 500)).toBe(true);

    const stats = session.stats().speakers;
    for (const s of stats) {
      const pages = parseOggPages(await readFile(s.recordingPath!));
      expect(pages.every((p) => p.crcOk)).toBe(true);
      const lastTurn = played.filter((p) => p.turn.speaker.key === s.key).at(-1)!;
      const fileSeconds = Number(pages.at(-1)!.granule) / 48_000;
      // The recording runs into the speaker's last turn and stops with the session: order, not
      // wall-clock bounds (a busy machine plays and ends late). The writer may still hold the
      // audio frames it was handed before the end (at most a second of them) when it closes.
      expect(fileSeconds).toBeGreaterThan(lastTurn.startSeconds);
      expect(fileSeconds).toBeLessThanOrEqual(endedSeconds + 1);
      if (hasFfprobe) {
        const duration = Number(
          execFileSync('/usr/bin/ffprobe', [
            '-v',
            'error',
            '-show_entries',
            'format=duration',
            '-of',
            'csv=p=0',
            s.recordingPath!,
          ]).toString(),
        );
        expect(duration).toBeCloseTo(fileSeconds, 1);
      }
    }
  });
});

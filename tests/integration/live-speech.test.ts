import type { Transcript } from '@chronicler/contracts';
import { createLogger, loadConfig } from '@chronicler/kit';
import {
  createStreamGate,
  createStreamingProvider,
  SpeechConfigSchema,
  streamLimits,
} from '@chronicler/speech';
import {
  LiveSession,
  playTurns,
  scaledClock,
  speak,
  synthesizeTurns,
  toDiscordPcm,
  type Turn,
} from '@chronicler/voice-bot/pipeline';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeepgramLivePeer, type DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');

// The real pipeline end to end: speech synthesised per speaker with espeak-ng, encoded to
// Opus as Discord sends it, decoded and resampled by the pipeline, streamed with the
// Deepgram SDK to the streaming peer (which recognises the scripted lines), stored,
// fanned out and watched over the socket.
describe.runIf(hasEspeak)(`live speech through the real pipeline (${testMode} mode)`, () => {
  let system: TestSystem;
  let peer: DeepgramLivePeer;
  let recordings: string;

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    // espeak-ng pauses briefly at commas; a turn is one segment, the pause between turns is longer.
    peer = await startDeepgramLivePeer({ silenceMs: 600 });
    recordings = mkdtempSync(path.join(os.tmpdir(), 'chronicler-recordings-'));
  }, 120_000);
  afterAll(async () => {
    await peer?.close();
    await system?.stop();
    if (recordings) rmSync(recordings, { recursive: true, force: true });
  });

  it('turns three speakers’ voices into a live transcript with their names, in order, and ends it', async () => {
    const alice = await localSignIn(system.url, 'alice');
    const owner = alice.body.user!.id;
    const config = loadConfig(SpeechConfigSchema, peer.env());
    const provider = createStreamingProvider(config)!;
    expect(provider.name).toBe('deepgram');
    const gate = createStreamGate(system.platform!.coord, streamLimits(config));

    const matt = { key: '1001', displayName: 'Matt', userId: '1001' };
    const laura = { key: '1002', displayName: 'Laura', userId: '1002' };
    const travis = { key: '1003', displayName: 'Travis', userId: '1003' };
    const turns: Turn[] = [
      { speaker: matt, text: 'Welcome back to the city of Kraghammer' },
      { speaker: laura, text: 'Vex draws her bow and looks around' },
      { speaker: travis, text: 'Grog wants to punch the door' },
      { speaker: matt, text: 'Roll for perception everyone' },
    ];
    // Synthesised before the session starts, so synthesis never stretches the session's clock.
    const synthesized = await synthesizeTurns(turns);
    // The peer is told what each line sounds like, and answers only what reaches it.
    peer.script(
      await Promise.all(
        synthesized.map(async (t) => ({
          text: t.text,
          pcm: toDiscordPcm(await speak(t.text, { voice: t.voice })),
        })),
      ),
    );
    const speed = 3;
    const transcriptId = randomUUID();
    const session = new LiveSession({
      bus: system.platform!.bus,
      transcriptId,
      ownerId: owner,
      name: 'Voices at the table',
      origin: 'replay',
      provider,
      gate,
      keyterms: ['Kraghammer', 'Vox Machina'],
      recordingsDir: recordings,
      logger: createLogger(null, { level: 'warn' }),
      now: scaledClock(speed),
    });
    await session.start();
    await waitFor(
      async () =>
        (await apiCall(system.url, 'GET', `/transcripts/${transcriptId}`, alice.cookie)).status === 200,
    );
    const viewer = new LiveViewer(system.url, transcriptId, alice.cookie);
    try {
      await playTurns(session, synthesized, { speed, pauseSeconds: 1.5 });
      const end = await session.end();
      expect(end.final_count).toBe(turns.length);
      await viewer.untilEnded(60_000);

      const lines = viewer.ordered();
      expect(lines.map((l) => l.text)).toEqual(turns.map((t) => t.text));
      expect(lines.map((l) => l.speaker_info?.displayName)).toEqual(['Matt', 'Laura', 'Travis', 'Matt']);
      for (let i = 1; i < lines.length; i++) {
        expect(lines[i]!.start_seconds).toBeGreaterThan(lines[i - 1]!.start_seconds);
      }
      expect(viewer.interims.length).toBeGreaterThan(0);
      // One stream per speaker, each told the campaign's names.
      expect(new Set(peer.streams.map((s) => s.keyterms.join(',')))).toEqual(
        new Set(['Kraghammer,Vox Machina']),
      );
      expect(peer.streams.length).toBe(3);
      // Each speaker's audio is on disk as Ogg/Opus.
      for (const key of ['1001', '1002', '1003']) {
        expect(statSync(path.join(recordings, transcriptId, `${key}.ogg`)).size).toBeGreaterThan(1000);
      }

      const stored = await apiCall<Transcript>(
        system.url,
        'GET',
        `/transcripts/${transcriptId}`,
        alice.cookie,
      );
      expect(stored.body.status).toBe('ended');
      expect(stored.body.name).toBe('Voices at the table');
      expect(stored.body.content.split('\n')).toHaveLength(4);
      expect(stored.body.content).toMatch(/^\[00:00:0\d\] Matt: Welcome back to the city of Kraghammer$/m);
    } finally {
      viewer.close();
    }
  }, 120_000);
});

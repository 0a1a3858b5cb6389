import { createBus, createCoordination, createLogger, loadConfig } from '@chronicler/kit';
import {
  createStreamGate,
  createStreamingProvider,
  SpeechConfigSchema,
  streamLimits,
} from '@chronicler/speech';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { LiveSession, playTurns, scaledClock, synthesizeTurns, type Turn } from '../pipeline/index.ts';
import type { ReplayTurn } from './replay.ts';

/**
 * The second replay mode: the real pipeline end to end. Each turn is spoken with espeak-ng
 * (one voice per speaker), encoded to Opus as Discord sends it, and played into a live
 * session that decodes, resamples and streams it to the configured provider; what the
 * provider recognises goes onto the bus as the bot's would. Returns the transcript ids.
 */
export async function replaySpeech(
  turns: ReplayTurn[],
  opts: {
    owner: string;
    speed: number;
    sessions: number;
    words: number;
    dataDir: string;
    name?: string;
    groupId?: string;
  },
): Promise<string[]> {
  const logger = createLogger(null, { level: process.env.LOG_LEVEL ?? 'warn' });
  const config = loadConfig(SpeechConfigSchema, process.env);
  const provider = createStreamingProvider(config);
  if (!provider)
    throw new Error(
      '--speech needs a speech provider: set TRANSCRIPTION_BASE_URL, DEEPGRAM_API_KEY or ASSEMBLYAI_API_KEY',
    );
  const prefix = process.env.BUS_PREFIX ?? 'chronicler';
  const bus = await createBus({
    natsUrl: process.env.NATS_URL,
    prefix,
    dataDir: opts.dataDir,
    name: 'live-replay',
    logger,
  });
  const coord = await createCoordination({ redisUrl: process.env.REDIS_URL, prefix, logger });
  const gate = createStreamGate(coord, streamLimits(config));
  try {
    const speakers = new Map<string, number>();
    const spoken: Turn[] = turns.map((t) => {
      if (!speakers.has(t.speaker)) speakers.set(t.speaker, speakers.size + 1);
      return {
        speaker: { key: `speaker-${speakers.get(t.speaker)}`, displayName: t.speaker.slice(0, 100) },
        text: t.text.split(' ').slice(0, Math.max(1, opts.words)).join(' '),
      };
    });
    const synthesized = await synthesizeTurns(spoken);
    return await Promise.all(
      Array.from({ length: opts.sessions }, async (_, i) => {
        const session = new LiveSession({
          bus,
          transcriptId: randomUUID(),
          ownerId: opts.owner,
          ...(opts.name ? { name: opts.sessions > 1 ? `${opts.name} ${i + 1}` : opts.name } : {}),
          ...(opts.groupId ? { groupId: opts.groupId } : {}),
          origin: 'replay',
          provider,
          gate,
          keyterms: [],
          recordingsDir: path.join(opts.dataDir, 'recordings'),
          logger,
          now: scaledClock(opts.speed),
        });
        await session.start();
        process.stderr.write(`session ${i + 1}: transcript ${session.transcriptId}\n`);
        await playTurns(session, synthesized, { speed: opts.speed });
        await session.end();
        return session.transcriptId;
      }),
    );
  } finally {
    await bus.close();
    await coord.close();
  }
}

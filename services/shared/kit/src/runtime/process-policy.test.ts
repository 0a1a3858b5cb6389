import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { processErrors } from '../ops/metrics.ts';
import { installProcessPolicy, originOf } from './process-policy.ts';

const voiceError = (): Error => {
  const err = new Error('Failed to process proposals: MessageProcessingFailed(ValidationError(WrongEpoch))');
  err.stack = `${err.message}\n    at DAVESession.processProposals (/app/node_modules/.pnpm/@discordjs+voice@0.19.2/node_modules/@discordjs/voice/dist/index.js:873:38)`;
  return err;
};
const count = async (labels: Record<string, string>): Promise<number> =>
  (await processErrors.get()).values
    .filter((v) => Object.entries(labels).every(([k, x]) => v.labels[k as keyof typeof v.labels] === x))
    .reduce((n, v) => n + v.value, 0);
const emit = (event: 'uncaughtException' | 'unhandledRejection', err: unknown): void => {
  // The handlers as Node calls them, without the test runner's own (which would fail the test).
  for (const l of process.listeners(event as 'uncaughtException').slice(-1)) (l as (e: unknown) => void)(err);
};

describe('the process policy for what nothing caught', () => {
  it('knows a voice error by its stack', () => {
    expect(originOf(voiceError())).toBe('voice');
    expect(originOf(new Error('pg: connection terminated'))).toBe('other');
    expect(originOf('a string')).toBe('other');
  });

  it('restarts the voice bot on a voice error and keeps the process; exits on another error', async () => {
    const exits: number[] = [];
    let restarts = 0;
    const log = createLogger('test', { level: 'silent' });
    const remove = installProcessPolicy(log, {
      restartVoice: async () => void restarts++,
      exit: (c) => void exits.push(c),
    });
    try {
      const before = await count({ kind: 'uncaught_exception', origin: 'voice', action: 'restart-voice' });
      emit('uncaughtException', voiceError());
      await new Promise((r) => setImmediate(r));
      expect(restarts).toBe(1);
      expect(exits).toEqual([]);
      expect(await count({ kind: 'uncaught_exception', origin: 'voice', action: 'restart-voice' })).toBe(
        before + 1,
      );
      emit('uncaughtException', new Error('a broken invariant elsewhere'));
      expect(exits).toEqual([1]);
      expect(await count({ kind: 'uncaught_exception', origin: 'other', action: 'exit' })).toBeGreaterThan(0);
    } finally {
      remove();
    }
  });

  it('logs and counts an unhandled rejection and goes on', async () => {
    const exits: number[] = [];
    const remove = installProcessPolicy(createLogger('test', { level: 'silent' }), {
      exit: (c) => void exits.push(c),
    });
    try {
      const before = await count({ kind: 'unhandled_rejection' });
      emit('unhandledRejection', new Error('nobody awaited me'));
      expect(await count({ kind: 'unhandled_rejection' })).toBe(before + 1);
      expect(exits).toEqual([]);
    } finally {
      remove();
    }
  });

  it('without a way to restart the voice bot, a voice error ends the process as any other', () => {
    const exits: number[] = [];
    const remove = installProcessPolicy(createLogger('test', { level: 'silent' }), {
      exit: (c) => void exits.push(c),
    });
    try {
      emit('uncaughtException', voiceError());
      expect(exits).toEqual([1]);
    } finally {
      remove();
    }
  });
});

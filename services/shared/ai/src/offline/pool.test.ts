import { createLogger } from '@chronicler/kit';
import { describe, expect, it } from 'vitest';
import { runOffline } from './pool.ts';
import type { OfflineTask } from './tasks.ts';

const logger = createLogger('pool-test', { level: 'silent' });
const transcript = Array.from(
  { length: 400 },
  (_, i) =>
    `[${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00] ${i % 3 ? 'Laura' : 'Matt'}: ` +
    (i === 200 ? 'I name my horse Shelby.' : `The party walks on through the rain, turn ${i}.`),
).join('\n');
const horse = { line: 200, seconds: 12_000, speaker: 'Laura', text: 'I name my horse Shelby.' };
const answer: OfflineTask = {
  kind: 'answer',
  input: {
    name: 'Rain',
    scope: 'session',
    found: {
      sessions: [
        { transcript_id: 't', name: 'Rain', session_timestamp: '2026-01-01T00:00:00.000Z', group_id: '' },
      ],
      passages: [
        {
          transcript_id: 't',
          transcript_name: 'Rain',
          session_timestamp: '2026-01-01T00:00:00.000Z',
          hit: 0,
          lines: [horse],
          link: '/sessions/t#t=03:20:00',
          score: 1,
        },
      ],
      whole: false,
      speakers: [],
    },
    question: 'What is the name of the horse?',
    history: [],
  },
};
const summary: OfflineTask = { kind: 'session', input: { name: 'Rain', transcript } };

describe('the offline engine on a worker thread', () => {
  it('gives the same text as on the calling thread, summaries and answers alike', async () => {
    expect(await runOffline(1, answer, { logger })).toBe(await runOffline(0, answer, { logger }));
    expect(await runOffline(1, answer, { logger })).toContain('Shelby');
    expect(await runOffline(1, summary, { logger })).toBe(await runOffline(0, summary, { logger }));
  });

  it('stops a task when its request is aborted, and goes on with the next one', async () => {
    const controller = new AbortController();
    const running = runOffline(1, summary, { logger, signal: controller.signal });
    controller.abort();
    await expect(running).rejects.toThrow(/abort/i);
    expect(await runOffline(1, answer, { logger })).toContain('Shelby');
  });
});

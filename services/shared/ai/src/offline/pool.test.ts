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
const answer: OfflineTask = {
  kind: 'answer',
  input: { transcriptName: 'Rain', transcript, question: 'What is the name of the horse?', history: [] },
};

describe('the offline engine on a worker thread', () => {
  it('gives the same text as on the calling thread, summaries and answers alike', async () => {
    const summary: OfflineTask = { kind: 'session', input: { name: 'Rain', transcript } };
    expect(await runOffline(1, answer, { logger })).toBe(await runOffline(0, answer, { logger }));
    expect(await runOffline(1, answer, { logger })).toContain('Shelby');
    expect(await runOffline(1, summary, { logger })).toBe(await runOffline(0, summary, { logger }));
  });

  it('stops a task when its request is aborted, and goes on with the next one', async () => {
    const controller = new AbortController();
    const running = runOffline(1, answer, { logger, signal: controller.signal });
    controller.abort();
    await expect(running).rejects.toThrow(/abort/i);
    expect(await runOffline(1, answer, { logger })).toContain('Shelby');
  });
});

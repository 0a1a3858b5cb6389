import { AiRateLimitedError } from '@chronicler/ai';
import { describe, expect, it } from 'vitest';
import { withRateLimitRetry } from './generate-session.ts';

describe('automatic summaries that meet the AI rate limit', () => {
  it('wait (the limit’s retry-after, at least a growing backoff) and try again instead of failing', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withRateLimitRetry(
      async () => {
        calls += 1;
        if (calls < 4) throw new AiRateLimitedError(calls === 1 ? 10_000 : 0);
        return 'summary';
      },
      { baseMs: 1_000, sleep: async (ms) => void waits.push(ms) },
    );
    expect(result).toBe('summary');
    expect(calls).toBe(4);
    expect(waits).toHaveLength(3);
    expect(waits[0]).toBeGreaterThanOrEqual(10_000);
    expect(waits[1]).toBeGreaterThanOrEqual(2_000);
    expect(waits[2]).toBeGreaterThanOrEqual(4_000);
  });

  it('give up after the last attempt, and never retry other errors', async () => {
    let calls = 0;
    const sleep = async () => undefined;
    await expect(
      withRateLimitRetry(
        async () => {
          calls += 1;
          throw new AiRateLimitedError(0);
        },
        { attempts: 2, sleep },
      ),
    ).rejects.toBeInstanceOf(AiRateLimitedError);
    expect(calls).toBe(3);
    calls = 0;
    await expect(
      withRateLimitRetry(
        async () => {
          calls += 1;
          throw new Error('model down');
        },
        { sleep },
      ),
    ).rejects.toThrow('model down');
    expect(calls).toBe(1);
  });
});

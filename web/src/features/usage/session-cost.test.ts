import type { SessionUsage } from '@chronicler/contracts';
import { describe, expect, it } from 'vitest';
import { costParts, usd } from './SessionCost.tsx';

const none: SessionUsage = {
  transcript_id: 't',
  speech: { basis: 'none', seconds: 0, providers: [], per_speaker: [], price_per_minute_usd: 0, cost_usd: 0 },
  ai: { requests: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, by_type: [] },
  total_cost_usd: 0,
};

describe('the session cost line', () => {
  it('reads $0 offline and says what was used', () => {
    expect(
      costParts({ ...none, ai: { ...none.ai, requests: 1, input_tokens: 900, output_tokens: 100 } }),
    ).toEqual({
      total: '$0',
      speech: 'no speech-to-text',
      ai: 'AI 1 request (1,000 tokens) $0',
    });
  });

  it('prices the speaker streams and the requests', () => {
    const u: SessionUsage = {
      ...none,
      speech: {
        basis: 'streams',
        seconds: 960,
        providers: ['deepgram'],
        per_speaker: [
          { speaker_key: 'a', streams: 2, seconds: 660 },
          { speaker_key: 'b', streams: 1, seconds: 300 },
        ],
        price_per_minute_usd: 0.0043,
        cost_usd: 0.0688,
      },
      ai: { requests: 2, input_tokens: 1000, output_tokens: 200, cost_usd: 0.0012, by_type: [] },
      total_cost_usd: 0.07,
    };
    expect(costParts(u)).toEqual({
      total: '$0.07',
      speech: 'speech 16 min 0 s over 2 speaker streams $0.07',
      ai: 'AI 2 requests (1,200 tokens) $0.0012',
    });
    expect(usd(1.234)).toBe('$1.23');
  });
});

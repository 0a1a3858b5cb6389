import { OFFLINE_AI_MARKER } from '@chronicler/contracts';
import { describe, expect, it } from 'vitest';
import { summaryPreview } from './session-data.ts';

describe('session card previews', () => {
  it('spend their characters on the digest, not on the offline notice', () => {
    const digest = `${OFFLINE_AI_MARKER}\n### Key moments\n- "A woman runs up to you, her name is Hedda Vorn." (GM) [[00:01:20]](/sessions/s1#t=00:01:20)`;
    const preview = summaryPreview(digest);
    expect(preview).toBe('Key moments\n"A woman runs up to you, her name is Hedda Vorn." (GM) [00:01:20]');
    expect(preview).not.toMatch(/offline|chronicler/i);
  });
});

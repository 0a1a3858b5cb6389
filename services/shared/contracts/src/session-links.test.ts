import { describe, expect, it } from 'vitest';
import { linkedSessions, sharedLinks } from './session-links.ts';

const where = (id: string) => (id === 'abc' ? '/shared/T' : null);

describe('links inside a shared text', () => {
  it("opens the session's moments inside the shared view, the time kept", () => {
    const text = '- "I ready my bow." (Laura) [[00:01:10]](/sessions/abc#t=00:01:10)';
    expect(sharedLinks(text, where)).toBe('- "I ready my bow." (Laura) [[00:01:10]](/shared/T#t=00:01:10)');
  });

  it('keeps only the words of a link to a session the link does not open', () => {
    expect(
      sharedLinks('See [Session two](/sessions/zzz) and [[00:00:02]](/sessions/zzz#t=00:00:02).', where),
    ).toBe('See Session two and [00:00:02].');
  });

  it('leaves other links and plain text alone', () => {
    const text = '[docs](https://example.com/sessions/abc) and [here](#t=00:00:05) and /sessions/abc';
    expect(sharedLinks(text, where)).toBe(text);
  });

  it('names the sessions a text links to', () => {
    expect([...linkedSessions('[a](/sessions/abc#t=1) [b](/sessions/def) [c](/sessions/abc)')]).toEqual([
      'abc',
      'def',
    ]);
  });
});

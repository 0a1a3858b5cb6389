import { describe, expect, it } from 'vitest';
import { storyEnd } from './summarize.ts';
import { transcriptSentences } from './text.ts';

/** A session of `n` lines, the game master speaking most, with `lines` put at their positions. */
function session(n: number, lines: Record<number, string>): ReturnType<typeof transcriptSentences> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const time = new Date(i * 10_000).toISOString().slice(11, 19);
    out.push(
      lines[i] ?? (i % 2 ? `[${time}] LAURA: I look around.` : `[${time}] MATT: The cave goes on and on.`),
    );
  }
  return transcriptSentences(out.join('\n'));
}

describe('storyEnd', () => {
  it('ends the story where the game master closes the game, not at a break', () => {
    const sentences = session(300, {
      270: "[00:45:00] MATT: We'll pick this up after the break, everyone.",
      285: "[00:47:30] MATT: The door slams shut. And we'll pick that up next week.",
      290: '[00:48:20] MATT: Thanks to our sponsor, and see you all next time.',
    });
    const end = storyEnd(sentences);
    expect(sentences[end]!.text).toBe("And we'll pick that up next week.");
    expect(sentences[end - 1]!.text).toBe('The door slams shut.');
  });

  it('keeps the whole of a short transcript, and of a session that never closes', () => {
    const short = transcriptSentences("[00:00:01] MATT: And we'll leave it at that.\n[00:00:05] LAURA: Aw.");
    expect(storyEnd(short)).toBe(short.length);
    const open = session(300, {});
    expect(storyEnd(open)).toBe(open.length);
  });
});

import type { SessionLine } from '@chronicler/contracts';
import { describe, expect, it } from 'vitest';
import { cuesOf, safeFileName, toSrt, toVtt } from './export-formats.ts';

const line = (n: number, seconds: number | null, text: string, name: string | null = null): SessionLine => ({
  line: n,
  seconds,
  time: null,
  speaker: seconds === null ? null : 'Speaker 1',
  name,
  text,
  original: null,
});

describe('subtitle cues', () => {
  it('runs each cue to the next later start, skips untimed lines and counts them', () => {
    const { cues, untimed } = cuesOf([
      line(1, null, 'Prose before the game.'),
      line(2, 5, 'First.', 'Vex'),
      line(3, 5, 'Same second.'),
      line(4, 9, 'Later, with a few more words to read here.'),
    ]);
    expect(untimed).toBe(1);
    expect(cues.map((c) => [c.start, c.end, c.text])).toEqual([
      [5, 9, 'Vex: First.'],
      [5, 9, 'Speaker 1: Same second.'],
      [9, 12.6, 'Speaker 1: Later, with a few more words to read here.'],
    ]);
  });

  it('keeps cue text from ending or splitting the cue, and escapes markup in WebVTT', () => {
    const lines = [line(1, 1, 'a --> b <i>&')];
    expect(toSrt(lines).body).toBe('1\n00:00:01,000 --> 00:00:03,000\nSpeaker 1: a → b <i>&\n');
    expect(toVtt(lines).body).toBe(
      'WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nSpeaker 1: a → b &lt;i&gt;&amp;\n',
    );
  });
});

describe('file names', () => {
  it('keeps letters and digits, drops accents and everything a header or a disk could trip on', () => {
    expect(safeFileName('Café: "The Citadel" / part 1', '2026-11-20T19:00:00.000Z', 'md')).toBe(
      'Cafe-The-Citadel-part-1-2026-11-20.md',
    );
    expect(safeFileName('../../etc/passwd', null, 'txt')).toBe('etc-passwd.txt');
    expect(safeFileName('🐉🐉', null, 'zip')).toBe('session.zip');
  });
});

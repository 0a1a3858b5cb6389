import type { SessionLine } from '@chronicler/contracts';
import { describe, expect, it } from 'vitest';
import { cuesOf, safeFileName, toSrt, toVtt, withLineTimes } from './export-formats.ts';
import { plainLines, summaryBlocks } from './export-markdown.ts';

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

describe('subtitle times', () => {
  it('keeps milliseconds: a line at 2.5 s starts at 00:00:02,500', () => {
    const srt = toSrt([line(1, 2.5, 'Hello.'), line(2, 5.25, 'Again.')]).body;
    expect(srt.split('\n')[1]).toBe('00:00:02,500 --> 00:00:05,250');
  });

  it('takes the stored times to the millisecond where they agree with the line’s second, and their ends', () => {
    const lines = [
      line(1, 2, 'Hello.'),
      line(2, 5, 'Again.'),
      line(3, 9, 'Edited stamp.'),
      line(4, null, 'Prose.'),
    ];
    const timed = withLineTimes(lines, [
      [2.5, 4],
      [5.2, 7.8],
      [12.25, 13],
      [20, 21],
    ]);
    expect(timed.map((l) => [l.seconds, l.end])).toEqual([
      [2.5, 4],
      [5.2, 7.8],
      // The stamp says 9 s: the content changed since; the stamp wins.
      [9, undefined],
      [null, undefined],
    ]);
    expect(
      toSrt(timed)
        .body.split('\n')
        .filter((l) => l.includes('-->')),
    ).toEqual([
      '00:00:02,500 --> 00:00:04,000',
      '00:00:05,200 --> 00:00:07,800',
      '00:00:09,000 --> 00:00:11,000',
    ]);
    expect(withLineTimes(lines, null)).toBe(lines);
  });

  it('refuses lines without any time in words, never an empty file', () => {
    expect(() => toSrt([line(1, null, 'Prose.')])).toThrow(/No line of this session has a time/);
    expect(() => toVtt([])).toThrow(/no transcript lines/);
  });
});

describe('a summary read as words', () => {
  it('drops the Markdown marks, raw HTML and link targets; keeps headings, lists and the offline note', () => {
    const md =
      '<!-- chronicler:offline -->\n# Recap\n\nThe **party** _rests_ <b>x</b>.\n\n1. One [[00:00:05]](/sessions/a#t=00:00:05)\n   - nested\n2. Two\n\n> Quoted';
    expect(plainLines(summaryBlocks(md))).toEqual([
      "Offline digest: no AI model was connected, so these are the transcript's own lines, not a written recap.",
      'Recap',
      'The party rests x.',
      '1. One [00:00:05]',
      '  • nested',
      '2. Two',
      'Quoted',
    ]);
    expect(summaryBlocks('The **party**.')[0]!.runs).toEqual([
      { text: 'The ' },
      { text: 'party', bold: true },
      { text: '.' },
    ]);
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

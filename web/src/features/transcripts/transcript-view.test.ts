import type { LiveLine } from '@chronicler/contracts';
import { describe, expect, it } from 'vitest';
import {
  SPEAKER_COLORS,
  findMatches,
  firstLineAtOrAfter,
  interimLines,
  linesFromContent,
  liveFinalLines,
  liveSpeaker,
  liveTime,
  parseTimeInput,
  speakerColor,
  speakerColors,
  speakersOf,
  type ViewLine,
} from './transcript-view.ts';

const START = '2026-03-14T19:00:00.000Z';

const live = (seq: number, text: string, extra: Partial<LiveLine> = {}): LiveLine => ({
  seq,
  utterance_id: `u${seq}`,
  text,
  speaker_tag: 'MATT',
  start_seconds: seq * 10,
  end_seconds: seq * 10 + 5,
  timestamp: new Date(Date.parse(START) + seq * 10_000).toISOString(),
  ...extra,
});

const shown = (lines: ViewLine[]) =>
  lines.map((l) => [l.time, l.speaker, l.text].filter((part) => part !== null).join(' | '));

/** WCAG contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, b2] = [1, 3, 5].map((i) => {
      const c = parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b2!;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

describe('transcript lines for the viewer', () => {
  it('reads stored text: times, names, speaker numbers and prose', () => {
    const lines = linesFromContent('[00:00:05] MATT: Hello.\n\n[01:02:03] 2: Hi.\nThe party rests.');
    expect(shown(lines)).toEqual([
      '00:00:05 | MATT | Hello.',
      '01:02:03 | Speaker 2 | Hi.',
      'The party rests.',
    ]);
    expect(lines.map((l) => l.seconds)).toEqual([5, 3723, null]);
  });

  it('names live speakers by displayName, else Speaker {n}, else speaker 1', () => {
    expect(liveSpeaker({ speaker_tag: 3, speaker_info: { displayName: 'Vex' } })).toBe('Vex');
    expect(liveSpeaker({ speaker_tag: 3 })).toBe('Speaker 3');
    expect(liveSpeaker({ speaker_tag: 'Dungeon Master' })).toBe('Dungeon Master');
    expect(liveSpeaker({ speaker_tag: '' })).toBe('Speaker 1');
    expect(liveSpeaker({ speaker_tag: undefined as unknown as number })).toBe('Speaker 1');
  });

  it('times live lines from the session start, else by the 12-hour clock', () => {
    expect(liveTime({ start_seconds: 3725, timestamp: START }, START)).toEqual({
      seconds: 3725,
      time: '01:02:05',
    });
    expect(liveTime({ start_seconds: NaN, timestamp: '2026-03-14T19:00:42.000Z' }, START)).toEqual({
      seconds: 42,
      time: '00:00:42',
    });
    const clock = liveTime({ start_seconds: 12, timestamp: '2026-03-14T19:04:12.000Z' }, null);
    expect(clock.seconds).toBeNull();
    // The local zone decides the hour; the form is h:mm:ss AM/PM.
    expect(clock.time).toMatch(/^\d{1,2}:04:12\s?[AP]M$/);
  });

  it('shows nothing for a lost marker: it only holds its place', () => {
    const lines = [live(1, 'One'), { ...live(2, ''), lost: true as const }, live(3, 'Three')];
    expect(
      shown(liveFinalLines({ content: null, contentSeq: 0, lines, sessionStartTime: START }, '')),
    ).toEqual(['00:00:10 | MATT | One', '00:00:30 | MATT | Three']);
  });

  it('shows the polled text until the socket sends lines, then the socket text and the lines after it', () => {
    const polled = '[00:00:05] MATT: From the poll.';
    expect(
      shown(liveFinalLines({ content: null, contentSeq: 0, lines: [], sessionStartTime: START }, polled)),
    ).toEqual(['00:00:05 | MATT | From the poll.']);
    const lines = [live(1, 'One'), live(2, 'Two', { speaker_info: { displayName: 'Vex' } })];
    expect(
      shown(liveFinalLines({ content: null, contentSeq: 0, lines, sessionStartTime: START }, polled)),
    ).toEqual(['00:00:10 | MATT | One', '00:00:20 | Vex | Two']);
    // The socket's text covers up to seq 1; line 2 follows it.
    expect(
      shown(
        liveFinalLines(
          { content: '[00:00:10] MATT: One, edited.', contentSeq: 1, lines, sessionStartTime: START },
          polled,
        ),
      ),
    ).toEqual(['00:00:10 | MATT | One, edited.', '00:00:20 | Vex | Two']);
  });

  it('keeps the view of a live line when nothing about it changed', () => {
    const line = live(1, 'One');
    const snapshot = { content: null, contentSeq: 0, lines: [line], sessionStartTime: START };
    expect(liveFinalLines(snapshot, '')[0]).toBe(liveFinalLines(snapshot, '')[0]);
  });

  it('marks interims as in progress', () => {
    const [interim] = interimLines({
      sessionStartTime: START,
      interims: [
        {
          key: 'u9\u0000MATT',
          utterance_id: 'u9',
          text: 'Roll for',
          speaker_tag: 'MATT',
          start_seconds: 90,
          timestamp: START,
        },
      ],
    });
    expect(interim).toMatchObject({ interim: true, text: 'Roll for', speaker: 'MATT', time: '00:01:30' });
  });

  it('reads HH:MM:SS and MM:SS times and refuses anything else', () => {
    expect(parseTimeInput('01:02:03')).toBe(3723);
    expect(parseTimeInput(' 4:00:00 ')).toBe(14_400);
    expect(parseTimeInput('12:34')).toBe(754);
    expect(parseTimeInput('90:00')).toBe(5400);
    for (const bad of ['', '12', '1:60', '01:60:00', 'ab:cd', '1:2:3:4', '00:00:5']) {
      expect(parseTimeInput(bad)).toBeNull();
    }
  });

  it('finds the first line at or after a time, skipping lines without one', () => {
    const lines = linesFromContent('Prose.\n[00:00:05] A: a\n[00:01:00] B: b\n[00:02:00] A: c');
    expect(firstLineAtOrAfter(lines, 0)).toBe(1);
    expect(firstLineAtOrAfter(lines, 6)).toBe(2);
    expect(firstLineAtOrAfter(lines, 60)).toBe(2);
    expect(firstLineAtOrAfter(lines, 121)).toBe(-1);
  });

  it('finds every case-insensitive match in final lines, regular-expression characters included', () => {
    const lines: ViewLine[] = [
      ...linesFromContent(
        '[00:00:01] A: The door. THE DOOR!\n[00:00:02] B: (a+b) door?\n[00:00:03] A: nothing',
      ),
      { key: 'i1', seconds: 4, time: '00:00:04', speaker: 'A', text: 'the door', interim: true },
    ];
    expect(findMatches(lines, ' the door ')).toEqual([
      { line: 0, start: 0 },
      { line: 0, start: 10 },
    ]);
    expect(findMatches(lines, '(A+B)')).toEqual([{ line: 1, start: 0 }]);
    expect(findMatches(lines, '   ')).toEqual([]);
  });

  it('lists speakers in order of first appearance', () => {
    expect(speakersOf(linesFromContent('[00:00:01] B: x\nProse\n[00:00:02] A: y\n[00:00:03] B: z'))).toEqual([
      'B',
      'A',
    ]);
  });

  it('gives each speaker a stable colour, readable on the card, the row hover and the highlight', () => {
    expect(speakerColor('MATT')).toBe(speakerColor('MATT'));
    const names = [
      'MATT',
      'LAURA',
      'TRAVIS',
      'MARISHA',
      'SAM',
      'LIAM',
      'TALIESIN',
      'ASHLEY',
      'Speaker 1',
      'Speaker 2',
    ];
    // Ten names should not all land on one or two colours.
    expect(new Set(names.map(speakerColor)).size).toBeGreaterThan(4);
    // At one table, speakers differ while there are colours enough, and keep the colour of
    // their name when it is free.
    const table = speakerColors(names);
    expect(new Set(table.values()).size).toBe(names.length);
    expect(table.get('MATT')).toBe(speakerColor('MATT'));
    expect(speakerColors([...names, 'Twelfth', 'Eleventh']).size).toBe(12);
    for (const colour of SPEAKER_COLORS) {
      for (const background of ['#ffffff', '#f8f9fb', '#e7eafb']) {
        expect(contrast(colour, background), `${colour} on ${background}`).toBeGreaterThanOrEqual(4.5);
      }
    }
  });
});

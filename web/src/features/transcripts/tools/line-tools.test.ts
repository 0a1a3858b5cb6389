import { describe, expect, it } from 'vitest';
import { linesFromContent } from '../transcript-view.ts';
import { withNamesAndEdits } from './use-transcript-tools.ts';

describe('the viewer lines with names and edits', () => {
  const lines = linesFromContent('[00:00:01] 1: Hello.\nprose with no speaker\n[00:00:05] 2: Hi there.');

  it('shows each named label by its name and an edited line by its new text, leaving the rest as they were', () => {
    const shown = withNamesAndEdits(
      lines,
      new Map([[3, { speaker: 'Speaker 2', text: 'Hi, everyone.' }]]),
      new Map([['Speaker 2', 'Vex']]),
    );
    expect(shown.map((l) => [l.speaker, l.text])).toEqual([
      ['Speaker 1', 'Hello.'],
      [null, 'prose with no speaker'],
      ['Vex', 'Hi, everyone.'],
    ]);
    // Untouched lines keep their identity (their memoised rows do not render again).
    expect(shown[0]).toBe(lines[0]);
    expect(shown[1]).toBe(lines[1]);
  });

  it('names the speaker an edit gave the line', () => {
    const shown = withNamesAndEdits(
      lines,
      new Map([[1, { speaker: 'Speaker 2', text: 'Hello.' }]]),
      new Map([['Speaker 2', 'Vex']]),
    );
    expect(shown[0]!.speaker).toBe('Vex');
  });
});

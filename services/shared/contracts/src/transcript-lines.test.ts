import { describe, expect, it } from 'vitest';
import {
  formatOffset,
  formatTranscriptLine,
  parseTranscriptLine,
  parseTranscriptLines,
  speakerLabel,
} from './transcript-lines.ts';

describe('transcript lines', () => {
  it('formats offsets as HH:MM:SS without wrapping hours', () => {
    expect(formatOffset(0)).toBe('00:00:00');
    expect(formatOffset(3725.9)).toBe('01:02:05');
    expect(formatOffset(30 * 3600)).toBe('30:00:00');
  });

  it('round-trips a stored line with a numeric speaker', () => {
    const stored = formatTranscriptLine({ seconds: 83.4, speaker: 2, text: 'Roll for\ninitiative.' });
    expect(stored).toBe('[00:01:23] 2: Roll for initiative.');
    expect(parseTranscriptLine(stored)).toEqual({ seconds: 83, speaker: '2', text: 'Roll for initiative.' });
  });

  it('reads pasted lines with a named speaker and no time, and prose as it is', () => {
    expect(parseTranscriptLine('MATT: Hello everyone.')).toEqual({
      seconds: null,
      speaker: 'MATT',
      text: 'Hello everyone.',
    });
    expect(parseTranscriptLine('The party rests: a long rest.')).toEqual({
      seconds: null,
      speaker: null,
      text: 'The party rests: a long rest.',
    });
    expect(parseTranscriptLines('a\n\n  \r\nb')).toHaveLength(2);
  });

  it("labels numbers as 'Speaker {n}' and keeps names", () => {
    expect(speakerLabel('3')).toBe('Speaker 3');
    expect(speakerLabel("Vex'ahlia")).toBe("Vex'ahlia");
    expect(speakerLabel(null)).toBeNull();
  });
});

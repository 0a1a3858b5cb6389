import { parseTranscriptLine } from '@chronicler/contracts';
import { describe, expect, it } from 'vitest';
import { crd3Transcript } from '../../../../tests/support/crd3.ts';
import { PASSAGE_GAP, selectPassages, stem, tokenize } from './retrieval.ts';

const transcript = crd3Transcript('C1E001', { timed: true });
const rawLines = transcript.split('\n');

describe('tokenize', () => {
  it('lowercases, drops punctuation and stop words, and stems', () => {
    expect(tokenize("What did the Dragons' attack on Kraghammer's gates do?")).toEqual([
      'dragon',
      'attack',
      'kraghammer',
      'gate',
    ]);
    expect(stem('attacked')).toBe(stem('attacking'));
    expect(stem('killed')).toBe('kill');
    expect(stem('cities')).toBe('city');
  });
});

describe('selectPassages on CRD3 C1E001', () => {
  it('returns the lines that mention what the question asks about, with their times', () => {
    const { text, lines } = selectPassages(transcript, 'Where is the Firebrook Inn?', { maxChars: 3000 });
    expect(text.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThanOrEqual(3000);
    const hits = lines.filter((i) => /firebrook/i.test(rawLines[i]!));
    expect(hits.length).toBeGreaterThan(0);
    // Every chosen line is a real transcript line, kept as written (with its [HH:MM:SS] time).
    for (const i of lines) expect(text).toContain(rawLines[i]!);
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] [A-Z]+: /);
    expect(text.toLowerCase()).toContain('firebrook');
  });

  it('keeps one neighbour each side by default, in transcript order', () => {
    const { lines } = selectPassages(transcript, 'Firebrook', { maxChars: 100_000 });
    const mentions = rawLines.flatMap((l, i) => (/firebrook/i.test(l) ? [i] : []));
    expect(mentions.length).toBeGreaterThan(0);
    for (const m of mentions) {
      expect(lines).toContain(m);
      if (m > 0) expect(lines).toContain(m - 1);
      if (m < rawLines.length - 1) expect(lines).toContain(m + 1);
    }
    expect([...lines].sort((a, b) => a - b)).toEqual(lines);
    expect(new Set(lines).size).toBe(lines.length);
  });

  it('widens by `context` lines and merges overlapping windows without gaps', () => {
    const narrow = selectPassages(transcript, 'Firebrook', { maxChars: 100_000, context: 0 });
    const wide = selectPassages(transcript, 'Firebrook', { maxChars: 100_000, context: 3 });
    expect(narrow.lines.every((i) => /firebrook/i.test(rawLines[i]!))).toBe(true);
    expect(wide.lines.length).toBeGreaterThan(narrow.lines.length);
    // A gap marker appears exactly between non-adjacent chosen lines.
    const runs = wide.lines.filter((l, k) => k === 0 || l !== wide.lines[k - 1]! + 1).length;
    expect(wide.text.split('\n').filter((l) => l === PASSAGE_GAP)).toHaveLength(runs - 1);
  });

  it('ranks the best-matching lines first when the budget is tight', () => {
    const { text, lines } = selectPassages(transcript, 'halfling paladin Kima', { maxChars: 1200 });
    expect(text.length).toBeLessThanOrEqual(1200);
    expect(lines.some((i) => /kima/i.test(rawLines[i]!))).toBe(true);
  });

  it('counts speaker names as terms', () => {
    const { lines } = selectPassages(transcript, 'What did Orion say?', { maxChars: 2000, context: 0 });
    expect(lines.length).toBeGreaterThan(0);
    const speakers = lines.map((i) => parseTranscriptLine(rawLines[i]!)?.speaker);
    expect(speakers.filter((s) => s === 'ORION').length).toBeGreaterThan(0);
  });

  it('returns nothing when no line shares a term with the question', () => {
    expect(selectPassages(transcript, 'xylophone quasar', { maxChars: 2000 })).toEqual({
      text: '',
      lines: [],
    });
    expect(selectPassages(transcript, 'what is the?', { maxChars: 2000 })).toEqual({ text: '', lines: [] });
    expect(selectPassages('', 'Kraghammer', { maxChars: 2000 })).toEqual({ text: '', lines: [] });
  });

  it('cuts a single matching line longer than the budget', () => {
    const { text, lines } = selectPassages(transcript, 'Allura Vysoren', { maxChars: 200, context: 0 });
    expect(lines).toHaveLength(1);
    expect(text.length).toBeLessThanOrEqual(200);
    expect(rawLines[lines[0]!]).toContain(text.slice(0, 150));
  });

  it('works on pasted transcripts without times and skips blank lines', () => {
    const pasted = 'MATT: The gate opens.\n\nLAURA: I look for the Firebrook Inn.\n\nSAM: Pie time.';
    const { text, lines } = selectPassages(pasted, 'firebrook', { maxChars: 500 });
    expect(lines).toEqual([0, 2, 4]);
    expect(text).toBe('MATT: The gate opens.\nLAURA: I look for the Firebrook Inn.\nSAM: Pie time.');
  });

  it('handles a 500,000-character transcript', () => {
    const big = Array.from({ length: 3 }, () => transcript)
      .join('\n')
      .slice(0, 500_000);
    const { text, lines } = selectPassages(big, 'Firebrook Inn', { maxChars: 8000 });
    expect(lines.length).toBeGreaterThan(0);
    expect(text.length).toBeLessThanOrEqual(8000);
  });
});

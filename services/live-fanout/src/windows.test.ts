import type { LiveLine } from '@chronicler/contracts';
import { describe, expect, it } from 'vitest';
import { LiveWindows } from './windows.ts';

const line = (seq: number): LiveLine => ({
  seq,
  utterance_id: `u-${seq}`,
  text: `line ${seq}`,
  speaker_tag: 1,
  start_seconds: seq,
  end_seconds: seq,
  timestamp: '2026-01-01T00:00:00.000Z',
});

describe('LiveWindows', () => {
  it('keeps the newest lines of a session up to its bound, in seq order whatever order they came in', () => {
    const w = new LiveWindows({ linesPerSession: 3, sessions: 10, idleMs: 60_000 });
    for (const seq of [2, 1, 5, 4, 3]) w.add('a', line(seq), '2026-01-01T00:00:00.000Z');
    expect(w.after('a', 0)).toEqual({ known: true, lines: [line(3), line(4), line(5)] });
    expect(w.after('a', 4).lines).toEqual([line(5)]);
    expect(w.startOf('a')).toBe('2026-01-01T00:00:00.000Z');
    expect(w.after('b', 0)).toEqual({ known: false, lines: [] });
  });

  it('drops the least recently active session past the bound, and an idle one', () => {
    let now = 0;
    const w = new LiveWindows({ linesPerSession: 10, sessions: 2, idleMs: 1_000 }, () => now);
    w.add('a', line(1), undefined);
    w.add('b', line(1), undefined);
    w.add('a', line(2), undefined);
    w.add('c', line(1), undefined);
    expect(w.after('b', 0).known).toBe(false);
    expect(w.after('a', 0).known).toBe(true);
    now = 2_000;
    expect(w.after('a', 0).known).toBe(false);
    expect(w.size).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { StreamTimeline } from './timeline.ts';

const RATE = 16_000;
/** Appends `seconds` of audio in 20 ms pieces starting at session time `at`, as they arrive. */
function run(t: StreamTimeline, at: number, seconds: number, jitter: (i: number) => number = () => 0): void {
  for (let i = 0; i < Math.round(seconds / 0.02); i++) t.append(at + i * 0.02 + jitter(i), 320);
}

describe('StreamTimeline', () => {
  it('maps stream offsets to session time through the run they fall in', () => {
    const t = new StreamTimeline(RATE, 0.2);
    run(t, 3, 2);
    run(t, 10, 1);
    expect(t.runs).toEqual([
      { audio: 0, session: 3 },
      { audio: 2, session: 10 },
    ]);
    expect(t.audioSeconds).toBeCloseTo(3, 9);
    expect(t.toSession(0.5, 'start')).toBeCloseTo(3.5, 9);
    expect(t.toSession(2.25, 'start')).toBeCloseTo(10.25, 9);
    expect(t.toSession(2.25, 'end')).toBeCloseTo(10.25, 9);
  });

  it('puts an offset on a run boundary at the start of the next run, or the end of the previous one', () => {
    const t = new StreamTimeline(RATE, 0.2);
    run(t, 1, 2);
    run(t, 10, 1);
    expect(t.toSession(2, 'start')).toBeCloseTo(10, 9);
    expect(t.toSession(2, 'end')).toBeCloseTo(3, 9);
  });

  it('treats late and early packets within the gap threshold as the same run', () => {
    const t = new StreamTimeline(RATE, 0.2);
    // Packets up to 150 ms late, then a burst catching up.
    run(t, 0, 2, (i) => (i % 10 === 5 ? 0.15 : 0));
    expect(t.runs).toHaveLength(1);
  });

  it('starts a new run after a pause longer than the threshold', () => {
    const t = new StreamTimeline(RATE, 0.2);
    run(t, 0, 1);
    run(t, 1.3, 1);
    expect(t.runs.map((r) => r.session)).toEqual([0, 1.3]);
  });

  it('never maps before the session start', () => {
    const t = new StreamTimeline(RATE, 0.2);
    expect(t.toSession(1.5, 'start')).toBe(1.5);
    run(t, 0, 1);
    expect(t.toSession(-0.3, 'start')).toBe(0);
  });
});

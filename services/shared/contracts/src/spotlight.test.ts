import { describe, expect, it } from 'vitest';
import { groupSpotlight, sessionSpotlight, SPOTLIGHT_BY_LINES_NOTE } from './spotlight.ts';

// Counted by hand with the rules in spotlight.ts (a line lasts until the next, at most 30 s;
// the last one 0.4 s a word, at least 1 s):
//   0   GM    10 s (to 10)
//   10  1     5 s  (to 15)
//   15  GM    45 s gap > 30 -> "Night falls." 2 words = 1 s (to 16)
//   60  2     20 s (to 80)
//   80  1     4 s  (to 84)
//   84  GM    5 words -> 2 s (to 86)
// Session 0..86 = 86 s; talk 42 s: GM 13 s (0.3095), Speaker 1 9 s (0.2143), Speaker 2 20 s (0.4762);
// of the players' 29 s: 20/29 = 0.6897, 9/29 = 0.3103.
const PASTED = [
  '[00:00:00] GM: Welcome back, everyone, to the table.',
  '[00:00:10] 1: I open the door.',
  '[00:00:15] GM: Night falls.',
  '[00:01:00] 2: I light a torch and look around the room.',
  '[00:01:20] 1: Me too.',
  '[00:01:24] GM: Roll for initiative, everyone, please.',
].join('\n');

const base = { transcript_id: 't1', name: 'One', session_timestamp: '2026-01-01T00:00:00Z' };

describe('sessionSpotlight', () => {
  it('counts time, lines, shares and the longest silence as a hand count does', () => {
    const s = sessionSpotlight({
      ...base,
      content: PASTED,
      names: new Map([['Speaker 2', { name: 'Ana', character: 'Vex' }]]),
    });
    expect(s.basis).toBe('time');
    expect(s.note).toBe('');
    expect(s.total_seconds).toBe(86);
    expect(s.gm_by).toBe('name');
    expect(s.gm).toMatchObject({ key: 'GM', seconds: 13, lines: 3, share: 0.3095, player_share: null });
    // GM: silent from 16 to 84.
    expect(s.gm!.longest_silence_seconds).toBe(68);
    expect(s.players.map((p) => [p.key, p.seconds, p.lines, p.character])).toEqual([
      ['Ana', 20, 1, 'Vex'],
      ['Speaker 1', 9, 2, ''],
    ]);
    const [ana, one] = s.players;
    expect(ana!.share).toBe(0.4762);
    expect(one!.share).toBe(0.2143);
    expect(ana!.player_share).toBe(0.6897);
    expect(one!.player_share).toBe(0.3103);
    // Ana: from the start to 60 (60 s, 3 lines before her); Speaker 1: 15 to 80 (65 s).
    expect(ana!.longest_silence_seconds).toBe(60);
    expect(ana!.longest_silence_lines).toBe(3);
    expect(one!.longest_silence_seconds).toBe(65);
    expect(one!.longest_silence_lines).toBe(2);
  });

  it('counts by lines, saying so, when lines have no times', () => {
    const s = sessionSpotlight({
      ...base,
      content: 'DM: Hello.\nMatt: Hi.\nDM: Go on.\nSam: Sure.',
      names: new Map(),
    });
    expect(s.basis).toBe('lines');
    expect(s.note).toBe(SPOTLIGHT_BY_LINES_NOTE);
    expect(s.gm).toMatchObject({ key: 'DM', lines: 2, share: 0.5, seconds: null });
    expect(s.players.map((p) => [p.key, p.share, p.player_share, p.longest_silence_lines])).toEqual([
      ['Matt', 0.25, 0.5, 2],
      ['Sam', 0.25, 0.5, 3],
    ]);
  });

  it('knows the game master from Who Is Who: the one who talks most without a character', () => {
    const s = sessionSpotlight({
      ...base,
      content: 'Matt: A long description of the room.\nLaura: I look.\nMatt: You see it.\nSam: Me too.',
      names: new Map(),
      links: [
        { speaker: 'Laura', character: 'Vex' },
        { speaker: 'Sam', character: 'Scanlan' },
      ],
    });
    expect(s.gm_by).toBe('who-is-who');
    expect(s.gm?.key).toBe('Matt');
    expect(s.players.map((p) => p.character).sort()).toEqual(['Scanlan', 'Vex']);
  });

  it('counts the table in chorus for nobody', () => {
    const s = sessionSpotlight({
      ...base,
      content: 'GM: Ready?\nALL: Yes!\nSam and Liam: No.\nAna: Go.',
      names: new Map(),
    });
    expect(s.untagged_lines).toBe(2);
    expect(s.players.map((p) => p.key)).toEqual(['Ana']);
  });

  it('marks nobody when nothing tells who runs the game', () => {
    const s = sessionSpotlight({ ...base, content: 'A: one\nB: two', names: new Map() });
    expect(s.gm).toBeNull();
    expect(s.players).toHaveLength(2);
  });
});

describe('groupSpotlight', () => {
  it('counts the sessions since each player last had a large share', () => {
    const session = (id: string, content: string) =>
      sessionSpotlight({ ...base, transcript_id: id, content, names: new Map() });
    const g = groupSpotlight('g', [
      session('a', 'GM: x\nAna: a a\nBo: b'),
      session('b', 'GM: x\nAna: a\nBo: b'),
      session('c', 'GM: x\nAna: a\nAna: a\nBo: b'),
    ]);
    expect(g.gm.map((c) => c.key)).toEqual(['GM']);
    const byKey = Object.fromEntries(g.players.map((p) => [p.key, p]));
    // Bo: an even half in session b, less in c.
    expect(byKey.Bo!.sessions_since_large_share).toBe(1);
    expect(byKey.Ana!.sessions_since_large_share).toBe(0);
    expect(g.players[0]!.key).toBe('Bo');
    expect(byKey.Ana!.per_session).toEqual([0.3333, 0.3333, 0.5]);
    expect(byKey.Ana!.sessions).toBe(3);
  });
});

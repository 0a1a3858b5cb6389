// @vitest-environment happy-dom
import { sessionSpotlight } from '@chronicler/contracts';
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { linesFromContent } from '../transcripts/transcript-view.ts';
import { contentOfLines, duration, percent, sinceLabel } from './spotlight-view.ts';
import { SpotlightPanel } from './SpotlightPanel.tsx';

afterEach(cleanup);

const CONTENT = [
  '[00:00:00] GM: Welcome back, everyone, to the table.',
  '[00:00:10] 1: I open the door.',
  '[00:00:15] GM: Night falls.',
  '[00:01:00] 2: I light a torch and look around the room.',
  '[00:01:20] 1: Me too.',
  '[00:01:24] GM: Roll for initiative, everyone, please.',
].join('\n');

const spotlightOf = (content: string) =>
  sessionSpotlight({
    transcript_id: 't',
    name: 'Session',
    session_timestamp: '2026-01-01T00:00:00Z',
    content,
    names: new Map([['Speaker 2', { name: 'Ana', character: 'Vex' }]]),
  });

describe('the spotlight view', () => {
  it('counts the live lines as the server counts the stored text', () => {
    const lines = linesFromContent(CONTENT);
    expect(contentOfLines(lines).split('\n')[1]).toBe('[00:00:10] Speaker 1: I open the door.');
    expect(spotlightOf(contentOfLines(lines))).toEqual(spotlightOf(CONTENT));
    // The running shares move as lines come.
    const early = spotlightOf(contentOfLines(lines.slice(0, 3)));
    expect(early.players.map((p) => p.key)).toEqual(['Speaker 1']);
    expect(spotlightOf(contentOfLines(lines)).players[0]!.key).toBe('Ana');
  });

  it('shows the game master apart and each player with their figures', () => {
    render(<SpotlightPanel spotlight={spotlightOf(CONTENT)} />);
    expect(screen.getByText(/Game master: GM/)).toBeTruthy();
    const rows = within(screen.getByRole('table'))
      .getAllByRole('row')
      .map((r) => r.textContent);
    expect(rows).toEqual([
      'SpeakerTimeLinesOf the sessionOf the playersLongest silence',
      'GM13 s331%—1 min 8 s',
      'Ana (Vex)20 s148%69%1 min 0 s',
      'Speaker 19 s221%31%1 min 5 s',
    ]);
    expect(screen.getByRole('img', { name: "Shares of the players' talk" })).toBeTruthy();
  });

  it('says so when a session is counted by lines', () => {
    render(<SpotlightPanel spotlight={spotlightOf('DM: Hi.\nMatt: Yo.')} />);
    expect(screen.getByText(/counted by lines/)).toBeTruthy();
    expect(screen.getAllByText('1 line').length).toBeGreaterThan(0);
  });

  it('formats shares, times and the sessions since a large share', () => {
    expect(percent(0.4762)).toBe('48%');
    expect(duration(754)).toBe('12 min 34 s');
    expect(duration(3700)).toBe('1 h 1 min');
    expect(duration(null)).toBe('—');
    expect([null, 0, 1, 3].map(sinceLabel)).toEqual([
      'never',
      'latest session',
      '1 session ago',
      '3 sessions ago',
    ]);
  });
});

// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TranscriptLines } from './TranscriptLines.tsx';
import { linesFromContent, type ViewLine } from './transcript-view.ts';

// happy-dom does no layout: give the scroll box and the rows sizes, as a browser would, so
// the virtualiser has a viewport to fill.
beforeEach(() => {
  const height = (el: HTMLElement) => (el.classList.contains('transcript-scroll') ? 600 : 30);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockImplementation(function (this: HTMLElement) {
    return height(this);
  });
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockImplementation(function (this: HTMLElement) {
    return height(this);
  });
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const CONTENT = [
  '[00:00:01] MATT: The door creaks open.',
  '[00:00:05] LAURA: I check the door for traps.',
  '[00:01:10] 2: Roll for it.',
  '[00:02:00] MATT: It is a door. Just a door.',
  'The party rests.',
].join('\n');

const rowTexts = () =>
  [...screen.getByRole('region', { name: 'Transcript lines' }).querySelectorAll('.transcript-line')].map(
    (el) => el.textContent,
  );

describe('the transcript line list', () => {
  it('shows each line with its time and a coloured speaker', () => {
    render(<TranscriptLines lines={linesFromContent(CONTENT)} />);
    expect(rowTexts()).toEqual([
      '[00:00:01] MATT: The door creaks open.',
      '[00:00:05] LAURA: I check the door for traps.',
      '[00:01:10] Speaker 2: Roll for it.',
      '[00:02:00] MATT: It is a door. Just a door.',
      'The party rests.',
    ]);
    const speakers = document.querySelectorAll<HTMLElement>('.transcript-speaker');
    expect(speakers[0]!.style.color).toBe(speakers[3]!.style.color);
    expect(speakers[0]!.style.color).not.toBe('');
  });

  it('finds text, counts the matches and steps through them both ways', () => {
    render(<TranscriptLines lines={linesFromContent(CONTENT)} />);
    const box = screen.getByRole('searchbox', { name: 'Find in transcript' });
    fireEvent.change(box, { target: { value: 'DOOR' } });
    expect(screen.getByText('1 of 4')).toBeTruthy();
    const marks = () => [...document.querySelectorAll('mark.transcript-mark')];
    expect(marks().map((m) => m.textContent)).toEqual(['door', 'door', 'door', 'door']);
    expect(document.querySelectorAll('mark.is-current')).toHaveLength(1);
    expect(marks().findIndex((m) => m.classList.contains('is-current'))).toBe(0);

    fireEvent.click(screen.getByRole('button', { name: 'Next match' }));
    fireEvent.click(screen.getByRole('button', { name: 'Next match' }));
    expect(screen.getByText('3 of 4')).toBeTruthy();
    expect(marks().findIndex((m) => m.classList.contains('is-current'))).toBe(2);
    fireEvent.keyDown(box, { key: 'Enter', shiftKey: true });
    expect(screen.getByText('2 of 4')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Previous match' }));
    fireEvent.click(screen.getByRole('button', { name: 'Previous match' }));
    expect(screen.getByText('4 of 4')).toBeTruthy();

    fireEvent.change(box, { target: { value: 'dragon' } });
    expect(screen.getByText('No matches')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Next match' })).toHaveProperty('disabled', true);
  });

  it('filters by the chosen speakers', () => {
    render(<TranscriptLines lines={linesFromContent(CONTENT)} />);
    const filter = screen.getByRole('group', { name: 'Filter by speaker' });
    expect(
      within(filter)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['All speakers', 'MATT', 'LAURA', 'Speaker 2']);
    fireEvent.click(within(filter).getByRole('button', { name: 'MATT' }));
    expect(rowTexts()).toEqual([
      '[00:00:01] MATT: The door creaks open.',
      '[00:02:00] MATT: It is a door. Just a door.',
    ]);
    expect(screen.getByText('Showing 2 of 5 lines')).toBeTruthy();
    fireEvent.click(within(filter).getByRole('button', { name: 'Speaker 2' }));
    expect(rowTexts()).toHaveLength(3);
    fireEvent.click(within(filter).getByRole('button', { name: 'All speakers' }));
    expect(rowTexts()).toHaveLength(5);
    expect(within(filter).getByRole('button', { name: 'All speakers' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
  });

  it('folds the speaker chips into a menu past a few speakers, saying how many are chosen', () => {
    const many = Array.from(
      { length: 27 },
      (_, i) => `[00:00:${String(i + 10)}] VOICE${i + 1}: Line ${i + 1}.`,
    );
    const { container } = render(<TranscriptLines lines={linesFromContent(many.join('\n'))} />);
    const menu = container.querySelector('details.transcript-speakers-menu') as HTMLDetailsElement;
    expect(menu).toBeTruthy();
    expect(menu.open).toBe(false);
    const summary = menu.querySelector('summary')!;
    expect(summary.textContent).toBe('All speakers (27)');
    const filter = within(menu).getByRole('group', { name: 'Filter by speaker', hidden: true });
    fireEvent.click(within(filter).getByRole('button', { name: 'VOICE3', hidden: true }));
    expect(rowTexts()).toEqual(['[00:00:12] VOICE3: Line 3.']);
    fireEvent.click(within(filter).getByRole('button', { name: 'VOICE7', hidden: true }));
    expect(summary.textContent).toBe('2 of 27 speakers');
    // A table of three keeps its chips in view.
    cleanup();
    render(<TranscriptLines lines={linesFromContent(CONTENT)} />);
    expect(document.querySelector('details.transcript-speakers-menu')).toBeNull();
  });

  it('jumps to the first line at or after a time, and says why it cannot', () => {
    render(<TranscriptLines lines={linesFromContent(CONTENT)} />);
    const input = screen.getByLabelText('Jump to time');
    const go = screen.getByRole('button', { name: 'Go' });
    fireEvent.change(input, { target: { value: '1:00' } });
    fireEvent.click(go);
    expect(document.querySelector('.transcript-line.is-target')?.textContent).toBe(
      '[00:01:10] Speaker 2: Roll for it.',
    );
    fireEvent.change(input, { target: { value: '3:00:00' } });
    fireEvent.click(go);
    expect(screen.getByRole('alert').textContent).toBe('No line at or after that time');
    fireEvent.change(input, { target: { value: 'soon' } });
    fireEvent.click(go);
    expect(screen.getByRole('alert').textContent).toBe('Enter a time as HH:MM:SS or MM:SS');
  });

  it('shows interim lines after the final ones, marked as in progress', () => {
    const interim: ViewLine = {
      key: 'iu9',
      seconds: 130,
      time: '00:02:10',
      speaker: 'LAURA',
      text: 'Wait, I',
      interim: true,
    };
    render(<TranscriptLines lines={linesFromContent(CONTENT)} interims={[interim]} live />);
    const rows = document.querySelectorAll('.transcript-line');
    expect(rows[rows.length - 1]!.classList.contains('is-interim')).toBe(true);
    expect(rows[rows.length - 1]!.textContent).toBe('[00:02:10] LAURA: Wait, I in progress');
  });
});

import { describe, expect, it } from 'vitest';
import { characterSuggestions } from './character-suggestions.ts';

describe('characterSuggestions', () => {
  it('reads a weak inference as a guess, with its evidence, after the sure ones', () => {
    const out = characterSuggestions([
      {
        speaker: 'Speaker 4',
        character: 'Vex',
        confidence: 0.34,
        evidence: 'answered when the game master addressed Vex (2 times)',
      },
      {
        speaker: 'Speaker 2',
        character: 'Scanlan',
        confidence: 0.6,
        evidence: 'introduced themselves as Scanlan',
      },
    ]);
    expect(out.map((s) => [s.text, s.guess])).toEqual([
      ['Speaker 2 plays Scanlan', false],
      ['Speaker 4 may play Vex?', true],
    ]);
    expect(out[1]!.label).toBe(
      'Add Speaker 4 as Vex (a guess: answered when the game master addressed Vex (2 times))',
    );
    expect(out[0]!.label).toBe('Add Speaker 2 as Scanlan');
  });
});

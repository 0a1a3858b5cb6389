import { describe, expect, it } from 'vitest';
import { prepMatches } from './prep.ts';

describe('prepMatches', () => {
  it('ticks an item when a line says enough of its words, names included', () => {
    expect(
      prepMatches(
        'The innkeeper reveals the map is a forgery',
        'Oh, the innkeeper whispers: this map? A forgery.',
      ),
    ).toBe(true);
    expect(prepMatches('Introduce Captain Varla', 'A woman steps up: I am Captain Varla of the watch.')).toBe(
      true,
    );
  });

  it('needs every name of the item, and most of its other words', () => {
    expect(prepMatches('Introduce Captain Varla', 'The captain of the watch steps up.')).toBe(false);
    expect(
      prepMatches('The innkeeper reveals the map is a forgery', 'The innkeeper pours another drink.'),
    ).toBe(false);
  });

  it('needs a codex name the item holds, even written in lower case', () => {
    expect(prepMatches('the sword of kas is in the tomb', 'the sword is in the tomb', ['Sword of Kas'])).toBe(
      false,
    );
    expect(
      prepMatches('the sword of kas is in the tomb', 'Kas left his sword in the tomb', ['Sword of Kas']),
    ).toBe(true);
  });

  it('takes a codex name only as whole words', () => {
    expect(prepMatches('bananas for the market', 'bananas at the market', ['Ana'])).toBe(true);
  });

  it('matches words across plural and tense, not an item without words', () => {
    expect(prepMatches('Goblins ambush the wagon', 'the goblin ambushed our wagons')).toBe(true);
    expect(prepMatches('the a of', 'the a of')).toBe(false);
  });
});

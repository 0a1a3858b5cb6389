import { describe, expect, it } from 'vitest';
import {
  pairFeatures,
  pickSalient,
  rougeTokens,
  SALIENCE,
  wordFeatures,
  type SalienceCandidate,
} from './salience.ts';

const said = (prose: string, score = 0.5, narrator = false): SalienceCandidate => ({
  prose,
  score,
  narrator,
});

describe('salience', () => {
  it('has a weight for every feature', () => {
    const cands = [said('Grog swings his axe at the ogre.', 1, true), said('Okay, roll for it.')];
    const words = wordFeatures(cands, ['Grog']);
    expect([...words.values()].every((f) => f.length === SALIENCE.words.length)).toBe(true);
    const pairs = pairFeatures(cands, new Map([...words.keys()].map((w) => [w, 0.2])));
    expect([...pairs.values()].every((f) => f.length === SALIENCE.pairs.length)).toBe(true);
    expect(rougeTokens("Vex'ahlia shoots.")).toEqual(['vex', 'ahlia', 'shoots']);
  });

  it('picks what happened to whom over table talk and dice, and stops before the window is used up', () => {
    const window = [
      said('Okay, roll for it, plus your bonus.', 0.2),
      said('The ogre swings its club and Grog is thrown into the wall of the tavern.', 1, true),
      said('Yeah, sure, right, okay, cool.', 0.1),
      said('That is 17 plus 4, so 21 damage total.', 0.3),
      said('Grog gets up, grabs the ogre by the neck and throws it through the tavern door.', 0.9, true),
      said('Nice, nice, nice.', 0.1),
      // Out-of-game talk scores low as summary material (see summarize's quality).
      said('I need to go to the bathroom real quick.', 0.05),
      said('Vex watches from the balcony of the tavern as the ogre lands in the mud.', 0.8, true),
    ];
    const picked = pickSalient(window, ['Grog', 'Vex']);
    expect(picked.length).toBeGreaterThan(0);
    expect(picked.length).toBeLessThan(window.length);
    expect(picked).toContain(1);
    for (const filler of [0, 2, 3, 5, 6]) expect(picked).not.toContain(filler);
    // In transcript order, and never more than asked for.
    expect([...picked].sort((a, b) => a - b)).toEqual(picked);
    expect(pickSalient(window, ['Grog'], SALIENCE, 1)).toHaveLength(1);
    expect(pickSalient([], [])).toEqual([]);
  });
});

import type { InferredCharacterLink } from '@chronicler/contracts';

/** Below this an inferred link is a guess (a name the game master said to someone twice). */
const SURE_CONFIDENCE = 0.5;

/**
 * How a suggested link reads: a sure one as "X plays Y", a weak one as a guess, so a 0.34
 * does not look like a self-introduction. Sure ones first, strongest first.
 */
export function characterSuggestions(
  inferred: readonly InferredCharacterLink[],
): { link: InferredCharacterLink; text: string; label: string; guess: boolean }[] {
  return [...inferred]
    .sort((a, b) => b.confidence - a.confidence)
    .map((link) => {
      const guess = link.confidence < SURE_CONFIDENCE;
      return {
        link,
        guess,
        text: guess
          ? `${link.speaker} may play ${link.character}?`
          : `${link.speaker} plays ${link.character}`,
        label: guess
          ? `Add ${link.speaker} as ${link.character} (a guess: ${link.evidence})`
          : `Add ${link.speaker} as ${link.character}`,
      };
    });
}

import { describe, expect, it } from 'vitest';
import { crd3Blurb, crd3Transcript } from '../../../../tests/support/crd3.ts';
import { extractProperNames } from './campaign-names.ts';

const names = (...texts: string[]) => extractProperNames(texts.map((text) => ({ text }))).map((n) => n.name);

describe('extractProperNames', () => {
  // Three sessions of a real campaign as the transcript service reads them: the stored
  // transcript form ([HH:MM:SS] SPEAKER: text), cut at 200,000 characters, and the summaries.
  const episodes = ['C1E001', 'C1E005', 'C1E022'] as const;
  const sources = episodes.flatMap((episode) => [
    { text: crd3Transcript(episode, { timed: true }).slice(0, 200_000) },
    { text: crd3Blurb(episode), weight: 3 },
  ]);
  const found = extractProperNames(sources, { limit: 100 });
  const top = found.slice(0, 40).map((n) => n.name);

  it("finds the campaign's characters and places among its most frequent names", () => {
    for (const name of [
      'Grog',
      'Pike',
      'Scanlan',
      'Percy',
      'Keyleth',
      'Tiberius',
      'Kraghammer',
      'Vox Machina',
      "Vex'ahlia",
    ]) {
      expect(top, name).toContain(name);
    }
    expect(found.length).toBeGreaterThan(40);
    expect(found.length).toBeLessThanOrEqual(100);
    // Most frequent first.
    const counts = found.map((n) => n.count);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it('leaves out common words, speaker tags and all-capital words', () => {
    const all = found.map((n) => n.name);
    for (const word of [
      'The',
      'Okay',
      'Yeah',
      'Alright',
      'So',
      'Oh',
      'I',
      'You',
      'Well',
      'All',
      'Thank',
      'Roll',
    ]) {
      expect(all, word).not.toContain(word);
    }
    // The players' tags (MATT:, LAURA and TRAVIS:) are stripped, and capitals alone are no name.
    expect(all.filter((n) => !/\p{Ll}/u.test(n))).toEqual([]);
    expect(all.some((n) => n.includes(':') || n.includes('['))).toBe(false);
  });

  it('skips words that are capitalised only where a sentence or line starts', () => {
    const text =
      'Rain fell on the road. Rain kept falling. We met Zephyra at the gate, and Zephyra smiled.\n' +
      'Rain again. Then we saw Zephyra.';
    expect(names(text)).toEqual(['Zephyra']);
  });

  it('skips words written more often in lower case than as a name', () => {
    const text =
      'The party fought the dragon. A dragon roared, and the dragon fled. They named it Dragon once, ' +
      'and they found Thornwick, where Thornwick folk live.';
    expect(names(text)).toEqual(['Thornwick']);
  });

  it('strips time stamps and speaker tags, keeps names of several words and possessives', () => {
    const text = [
      '[00:00:01] ZORN: We ask about Vox Machina and the Slayer’s Take.',
      '[00:00:05] Zorn: Vox Machina owes the Slayer’s Take, says Lady Kima.',
      "[00:00:09] ZORN: It's Grog's turn. We follow Grog into Kraghammer. Kraghammer waits, and Kima too.",
    ].join('\n');
    const got = names(text);
    expect(got).toEqual(
      expect.arrayContaining(['Vox Machina', "Slayer's Take", 'Grog', 'Kraghammer', 'Kima']),
    );
    expect(got).not.toContain('Zorn');
    expect(got).not.toContain('ZORN');
    expect(got).not.toContain('Lady Kima');
  });

  it('counts a name once whatever its case, with its most frequent spelling, and weights sources', () => {
    const result = extractProperNames([
      { text: 'we met Keyleth, then keyleth, then Keyleth again and KeyLeth.' },
      { text: 'later Ravenna spoke.', weight: 5 },
    ]);
    expect(result).toEqual([
      { name: 'Ravenna', count: 5 },
      { name: 'Keyleth', count: 3 },
    ]);
  });

  it('answers nothing for empty or name-free text, and honours the limit and minimum', () => {
    expect(names('')).toEqual([]);
    expect(names('okay so yeah. Alright, I roll. The end.')).toEqual([]);
    const text = 'we saw Aldor, Aldor, Brin, Brin, Brin and Cael.';
    expect(extractProperNames([{ text }], { limit: 1 })).toEqual([{ name: 'Brin', count: 3 }]);
    expect(extractProperNames([{ text }], { minCount: 1 }).map((n) => n.name)).toEqual([
      'Brin',
      'Aldor',
      'Cael',
    ]);
  });

  it('reads a name after "Mrs." or "Dr." as mid-sentence, and keeps a subject always first only when asked', () => {
    expect(names('We met Mrs. Farrow. Then Dr. Quist came.', 'Ask Mrs. Farrow and Dr. Quist.')).toEqual([
      'Farrow',
      'Quist',
    ]);
    const text = 'Mott admits it. Mott is tired.\nHold on. Hold on, Mott.\nRuth Connelly, a laundress.';
    expect(extractProperNames([{ text }], { minCount: 1 }).map((n) => n.name)).toEqual(['Mott']);
    // Said only first in a sentence: "Mott" as a verb's subject and a two-word name; "Hold" before "on" is no subject.
    expect(
      extractProperNames(
        [{ text: 'Mott admits it. Mott is tired.\nHold on. Hold on.\nRuth Connelly, a laundress.' }],
        { minCount: 1, subjects: true },
      ).map((n) => n.name),
    ).toEqual(['Mott', 'Ruth Connelly']);
  });
});

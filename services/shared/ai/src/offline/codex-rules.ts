/**
 * The rules talk of any game, as the offline codex reads it (codex.ts): moves and abilities
 * named by a capitalised phrase ("Go Aggro", "Seize by Force"), stats played with a number
 * ("roll plus Hard", "Weird plus two"), powers said as verbs ("have Dominated him"), and words
 * that name no one alone (a nationality). Nothing here knows one game's moves or names.
 */
import type { CodexFinding } from '@chronicler/contracts';
import { commonNounAlone, headNounKind, RULES_LINE, TITLE_BEFORE } from './codex-cues.ts';
import type { CodexLine } from './codex-table.ts';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Use {
  line: CodexLine;
  before: string;
  after: string;
}

/** Playing a number onto a stat: "roll plus Hard", "Plus Weird", "+Cool": a stat, not someone. */
export const STAT_BEFORE = /(?:\b(?:roll(?:ing|s|ed)?\s+)?plus|\+)\s*$/i;
/** A stat's value or a bonus said after it: "Weird plus two", "Hard +3". */
export const STAT_AFTER = /^\s*(?:plus\s+(?:zero|one|two|three|four|five|six|\d+)|[+-]\s?\d)\b/i;

/** Words capitalised first in a sentence that join no name: "The Gentleman", "Then Ransom". */
const FUNCTION_WORD =
  /^(?:the|a|an|this|that|that['’]s|these|those|my|your|his|her|our|their|its|some|any|every|no|and|or|but|so|then|if|when|to|of|in|on|at|by|with|for|from|is|was|it|it['’]s|oh|okay|ok|yes|yeah|well|hey|hi|as|like|now|just|also)$/i;

/**
 * The capitalised phrase a name is part of with its neighbour, joined by a space or a small
 * word: "Go Aggro", "Seize by Force", "Read a Sitch", "Act Under Fire"; null where the
 * neighbour is a title ("Sheriff Crane"), a word of grammar ("The Gentleman") or there is none.
 */
function phraseAround(name: string, before: string, after: string): string | null {
  const left = /(?:^|[^\p{L}'’])(\p{Lu}[\p{L}'’-]*)\s+((?:(?:by|a|an|the|of|under|to|for)\s+)?)$/u.exec(
    before,
  );
  if (left && !TITLE_BEFORE.test(`${left[1]} `) && !FUNCTION_WORD.test(left[1]!))
    return `${left[1]} ${left[2]}${name}`;
  const right = /^\s+((?:(?:by|a|an|the|of|under|to|for)\s+)?)(\p{Lu}[\p{L}'’-]*)(?![\p{L}'’])/u.exec(after);
  if (right) return `${name} ${right[1]}${right[2]}`;
  return null;
}

/**
 * A line of rules talk about moves and stats, in any game: dice and checks (RULES_LINE), the
 * words move, stat, plus, use, or a question about what something is ("Is that X?", "That's
 * X or Y?").
 */
function rulesTalk(text: string): boolean {
  return (
    RULES_LINE.test(text) ||
    /\b(?:moves?|stats?|plus|uses?|rules?|rulebook|in the book)\b/i.test(text) ||
    /\b(?:is that|that['’]s|is it)\s+[^.!?]*\?/i.test(text)
  );
}

/** Nationalities and languages said as adjectives ("Old woman, Irish"): never someone alone. */
const NATIONALITIES = new Set(
  'french dutch welsh greek german italian american russian canadian mexican indian thai swiss scots scottish english british irish'.split(
    ' ',
  ),
);
function nationality(name: string): boolean {
  return NATIONALITIES.has(name.toLowerCase()) || /^\p{Lu}\p{Ll}{2,}(?:ish|ese)$/u.test(name);
}

/** Voiced by whoever runs the game: "As Thorne: Stay back!": someone who speaks. */
export const VOICED_BEFORE = /(?:^|[.!?:]\s+)[Aa]s\s+$/;
export const VOICED_AFTER = /^\s*:/;

/**
 * A name said inside a longer capitalised phrase that is a move or ability's name ("Go Aggro",
 * "Seize by Force", "Read a Sitch"): the same phrase said twice or more, on a line of rules
 * talk at least once. Not someone on its own, whatever its words look like.
 */
export function movesIn(lines: CodexLine[], text: string): (name: string, u: Use) => boolean {
  const known = new Map<string, boolean>();
  return (name, u) => {
    const phrase = phraseAround(name, u.before, u.after);
    if (!phrase) return false;
    if (!known.has(phrase)) {
      const re = new RegExp(`(?<![\\p{L}'’])${escape(phrase)}(?![\\p{L}'’])`, 'gu');
      const said = (text.match(re) ?? []).length;
      known.set(phrase, said >= 2 && lines.some((l) => l.text.includes(phrase) && rulesTalk(l.text)));
    }
    return known.get(phrase)!;
  };
}

/** Uses on lines where the name takes a verb's ending amid a sentence: "Can he have Dominated Ollie?". */
export function inflectedIn(name: string, us: Use[]): number {
  if (name.includes(' ')) return 0;
  const re = new RegExp(`[\\p{L},;]\\s+${escape(name)}(?:d|ed|ing)\\b`, 'u');
  return new Set(us.map((u) => u.line)).size && us.filter((u) => re.test(u.line.text)).length;
}

/**
 * A word that cannot name anyone alone: a nationality ("Old woman, Irish"), a common noun
 * ("Street" of "King Street"), or a word also said as a verb ("have Dominated him").
 */
export function noOneAlone(name: string, inflected: number): boolean {
  return nationality(name) || commonNounAlone(name) || inflected > 0;
}

/**
 * "Simon Thorne", said a few times with no sign, and "Thorne", someone: one entry under the
 * full name, when one two-word name ends with it. `findings` is rewritten.
 */
export function fullNames(findings: CodexFinding[], candidates: string[]): void {
  for (const f of findings) {
    const whole = candidates.filter((n) => n.endsWith(` ${f.name}`) && /^\p{Lu}\p{Ll}+ \S+$/u.test(n));
    if (f.kind !== 'person' || f.name.includes(' ') || whole.length !== 1) continue;
    if (headNounKind(whole[0]!) !== null || findings.some((g) => g.name === whole[0])) continue;
    f.aliases.push(f.name);
    f.name = whole[0]!;
  }
}

/**
 * Names of two capitalised words after a lower-case "the", amid a sentence: "camp at the Dry
 * Well", "through the Rust Gate": said twice, or once with a place, thing or group noun at its
 * head. `extractProperNames` drops them when their words are common ones ("dry", "well").
 */
export function theNames(text: string): string[] {
  const counts = new Map<string, number>();
  for (const m of text.matchAll(/(?<=\bthe )\p{Lu}\p{Ll}+ \p{Lu}\p{Ll}+(?![\p{L}'’])/gu))
    counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  return [...counts].filter(([n, c]) => c >= 2 || headNounKind(n) !== null).map(([n]) => n);
}

/** Said of in the next sentence as "he" or "she": "Valentina Cruz. She runs a parlour.". */
export const PRONOUN_AFTER =
  /^\.\s+(?:He|She)(?:['’]s|\s+(?:is|was|runs|ran|owns|works|lives|has|had|says|said))\b/;

/**
 * A condition or state a character is marked with, takes off or clears, in any game ("still
 * marked Insecure", "marked with Guilty", "Mark Angry", "clear Shaken"): a rules term, not someone.
 */
export const CONDITION_BEFORE =
  /(?:\b(?:mark(?:s|ed|ing)?|unmark(?:s|ed|ing)?|clear(?:s|ed|ing)?)|(?:^|[.!?]\s+)(?:Mark|Unmark|Clear))\s+(?:(?:with|off)\s+)?$/;

/**
 * A line where the table speaks to or of a pet of the house, out of the game: barking, "good
 * girl", "lie down", "the dog". A name said mostly on such lines is the household's, not the story's.
 */
const PET_LINE =
  /\b(?:bark(?:s|ed|ing)?|woof|meow(?:s|ed|ing)?|miaow\w*|good (?:girl|boy|dog|kitty)|lie down|(?:our|my|your) (?:dog|cat|puppy|kitten))\b/i;
export function householdPet(us: Use[]): boolean {
  return us.length > 0 && us.filter((u) => PET_LINE.test(u.line.text)).length * 2 >= us.length;
}

/**
 * Who is who at a table: players speak (their speaker tags are people), while stories and
 * questions name characters. The map is inferred from a transcript's own words: a player
 * introducing themselves ("I'm playing Vex'ahlia", "I play Grog"), and the game master
 * addressing a character by name ("Fjord, what do you do?") right before that player answers.
 * The user can correct it per campaign; the engine takes whatever map it is given.
 */
import {
  inferCharacterMap,
  parseTranscriptLines,
  type CharacterLink,
  type InferredCharacterLink,
} from '@chronicler/contracts';
import type { Pronouns } from './narrate.ts';

export { inferCharacterMap, type CharacterLink, type InferredCharacterLink };

/** A lookup both ways (case-insensitive), for rewriting questions and labelling lines. */
export class CharacterMap {
  private readonly bySpeaker = new Map<string, string>();
  private readonly byCharacter = new Map<string, string>();
  private pronouns: Map<string, Pronouns> | null = null;

  /** `texts`: what the story says of the characters, read for their pronouns when narration first asks. */
  constructor(
    readonly links: CharacterLink[],
    private readonly texts: () => string[] = () => [],
  ) {
    for (const l of links) {
      this.bySpeaker.set(l.speaker.toLowerCase(), l.character);
      this.byCharacter.set(l.character.toLowerCase(), l.speaker);
      // "Vex'ahlia" is "Vex" at the table, "Percival" is "Percy": the first part answers too.
      const short = l.character.split(/['’\s-]/)[0]!;
      if (short.length >= 3 && !this.byCharacter.has(short.toLowerCase())) {
        this.byCharacter.set(short.toLowerCase(), l.speaker);
      }
    }
  }

  characterOf(speaker: string | null): string | null {
    return speaker ? (this.bySpeaker.get(speaker.toLowerCase()) ?? null) : null;
  }

  /** How the story refers to a character of the map: "he", "she", or "they" when not known. */
  pronounsOf(character: string): Pronouns {
    if (!this.pronouns) {
      const found = inferPronouns(
        this.texts(),
        this.links.map((l) => l.character),
      );
      this.pronouns = new Map([...found].map(([c, p]) => [c.toLowerCase(), p]));
    }
    return this.pronouns.get(character.toLowerCase()) ?? 'they';
  }

  speakerOf(character: string): string | null {
    return this.byCharacter.get(character.toLowerCase()) ?? null;
  }

  /** The characters named in a text, with their players' speaker tags. */
  named(text: string): CharacterLink[] {
    const out: CharacterLink[] = [];
    for (const m of text.matchAll(/[\p{L}][\p{L}'’-]*/gu)) {
      const word = m[0].replace(/['’]s$/, '');
      const speaker = this.speakerOf(word);
      if (speaker && !out.some((o) => o.speaker === speaker)) {
        out.push({ speaker, character: this.characterOf(speaker)! });
      }
    }
    return out;
  }

  get size(): number {
    return this.links.length;
  }
}

/**
 * The map given (the campaign's, edited by its users) completed by what the transcript implies
 * for the speakers and characters it leaves out; the characters' pronouns are the ones the
 * transcript uses (read only when a sentence is narrated).
 */
export function characterMapFor(transcript: string, given: CharacterLink[] = []): CharacterMap {
  const speakers = new Set(given.map((l) => l.speaker.toLowerCase()));
  const characters = new Set(given.map((l) => l.character.toLowerCase()));
  const inferred = inferCharacterMap(transcript).filter(
    (l) => !speakers.has(l.speaker.toLowerCase()) && !characters.has(l.character.toLowerCase()),
  );
  return new CharacterMap(
    [...given, ...inferred.map(({ speaker, character }) => ({ speaker, character }))],
    () => parseTranscriptLines(transcript).map((l) => l.text),
  );
}

/** Fewer mentions than this followed by a pronoun, and the story's pronouns for a character stay unknown. */
const PRONOUN_EVIDENCE = 3;

/**
 * The pronouns the table uses for each character: after a mention of the name ("Vex", or
 * "Vex'ahlia" in full), the first he/his/him or she/her in the same sentence, before another
 * of the characters is named. A character gets "he" or "she" when at least three mentions
 * say so and four in five agree; otherwise nothing is guessed.
 */
export function inferPronouns(texts: string[], characters: string[]): Map<string, 'he' | 'she'> {
  const forms = (c: string) => [...new Set([c, c.split(/['’\s-]/)[0]!])].filter((x) => x.length >= 3);
  const owner = new Map<string, string>();
  for (const c of characters) for (const f of forms(c)) if (!owner.has(f)) owner.set(f, c);
  // "Vex'ahlia" is Vex too, and "Vex" is Vex'ahlia.
  const ownerOf = (word: string) => owner.get(word) ?? owner.get(word.split(/['’]/)[0]!);
  const counts = new Map<string, { he: number; she: number }>();
  for (const text of texts) {
    for (const sentence of text.split(/(?<=[.!?])\s+/)) {
      const words = sentence
        .split(/\s+/)
        .map((w) => w.replace(/^[^\p{L}]+|[^\p{L}'’]+$/gu, '').replace(/['’]s$/, ''));
      for (const [i, w] of words.entries()) {
        const c = ownerOf(w);
        if (!c) continue;
        for (const x of words.slice(i + 1, i + 12)) {
          if (ownerOf(x)) break;
          const he = /^(?:he|his|him|himself)$/i.test(x);
          if (!he && !/^(?:she|her|hers|herself)$/i.test(x)) continue;
          const n = counts.get(c) ?? { he: 0, she: 0 };
          n[he ? 'he' : 'she'] += 1;
          counts.set(c, n);
          break;
        }
      }
    }
  }
  const out = new Map<string, 'he' | 'she'>();
  for (const [c, n] of counts) {
    const total = n.he + n.she;
    if (total < PRONOUN_EVIDENCE) continue;
    if (n.he >= total * 0.8) out.set(c, 'he');
    else if (n.she >= total * 0.8) out.set(c, 'she');
  }
  return out;
}

/**
 * Who is who at a table: players speak (their speaker tags are people), while stories and
 * questions name characters. The map is inferred from a transcript's own words: a player
 * introducing themselves ("I'm playing Vex'ahlia", "I play Grog"), and the game master
 * addressing a character by name ("Fjord, what do you do?") right before that player answers.
 * The user can correct it per campaign; the engine takes whatever map it is given.
 */
import {
  inferCharacterMap,
  inferPronouns,
  parseTranscriptLines,
  type CharacterLink,
  type InferredCharacterLink,
} from '@chronicler/contracts';
import type { Pronouns } from './narrate.ts';

export { inferCharacterMap, type CharacterLink, type InferredCharacterLink };

/** A link of the map, with the character's pronouns when they are known. */
export type MapLink = CharacterLink & { pronouns?: 'he' | 'she' };

/** A lookup both ways (case-insensitive), for rewriting questions and labelling lines. */
export class CharacterMap {
  private readonly bySpeaker = new Map<string, string>();
  private readonly byCharacter = new Map<string, string>();
  private readonly pronounsByCharacter = new Map<string, Pronouns>();

  constructor(readonly links: MapLink[]) {
    for (const l of links) {
      this.bySpeaker.set(l.speaker.toLowerCase(), l.character);
      this.byCharacter.set(l.character.toLowerCase(), l.speaker);
      if (l.pronouns) this.pronounsByCharacter.set(l.character.toLowerCase(), l.pronouns);
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
    return this.pronounsByCharacter.get(character.toLowerCase()) ?? 'they';
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
 * for the speakers and characters it leaves out, and by the pronouns it uses for them.
 */
export function characterMapFor(transcript: string, given: MapLink[] = []): CharacterMap {
  const speakers = new Set(given.map((l) => l.speaker.toLowerCase()));
  const characters = new Set(given.map((l) => l.character.toLowerCase()));
  const inferred = inferCharacterMap(transcript).filter(
    (l) => !speakers.has(l.speaker.toLowerCase()) && !characters.has(l.character.toLowerCase()),
  );
  const unknown = given.filter((l) => !l.pronouns).map((l) => l.character);
  const pronouns =
    unknown.length > 0
      ? inferPronouns(
          parseTranscriptLines(transcript).map((l) => l.text),
          [...given.map((l) => l.character), ...inferred.map((l) => l.character)],
        )
      : new Map<string, 'he' | 'she'>();
  const link = ({ speaker, character, pronouns: known }: MapLink): MapLink => {
    const p = known ?? pronouns.get(character);
    return p ? { speaker, character, pronouns: p } : { speaker, character };
  };
  return new CharacterMap([...given.map(link), ...inferred.map(link)]);
}

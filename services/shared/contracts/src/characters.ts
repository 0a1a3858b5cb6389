/**
 * Who is who at a table: the campaign's speaker-to-character map. Players speak (their speaker
 * tags are people at the table), while stories and questions name characters. The group
 * service keeps the user's own map per group; the inference below suggests one from the
 * transcripts' own words: a player introducing themselves ("I'm playing Vex'ahlia"), and the
 * game master addressing a character by name ("Fjord, what do you do?") right before that
 * player answers. Chat, summaries and planning use the map through the AI engine.
 */
import { Type, type Static } from '@sinclair/typebox';
import { extractProperNames } from './campaign-names.ts';
import { rpc } from './rpc.ts';
import { parseTranscriptLines, speakerLabel } from './transcript-lines.ts';

/** The most links one group's map holds. */
export const CHARACTER_LINKS_MAX = 50;
/** The longest speaker tag or character name, after trimming. */
export const CHARACTER_NAME_MAX = 80;

/** One speaker tag and the character that speaker plays. */
export const CharacterLinkSchema = Type.Object({
  speaker: Type.String({ minLength: 1, maxLength: CHARACTER_NAME_MAX }),
  character: Type.String({ minLength: 1, maxLength: CHARACTER_NAME_MAX }),
});
export type CharacterLink = Static<typeof CharacterLinkSchema>;

/** A suggested link with how sure the inference is (0 to 1) and what it rests on. */
export const InferredCharacterLinkSchema = Type.Object({
  speaker: Type.String(),
  character: Type.String(),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  evidence: Type.String(),
});
export type InferredCharacterLink = Static<typeof InferredCharacterLinkSchema>;

/**
 * A group's map: `links` as the user set them (empty until they save one), `inferred` the
 * suggestions from the group's latest sessions for speakers the user's links leave out.
 */
export const GroupCharactersSchema = Type.Object({
  group_id: Type.String(),
  links: Type.Array(CharacterLinkSchema),
  inferred: Type.Array(InferredCharacterLinkSchema),
});
export type GroupCharacters = Static<typeof GroupCharactersSchema>;

/** The body of PUT /api/groups/{id}/characters: the whole map, replacing the stored one. */
export const PutGroupCharactersBodySchema = Type.Object({
  links: Type.Array(CharacterLinkSchema, { maxItems: CHARACTER_LINKS_MAX }),
});
export type PutGroupCharactersBody = Static<typeof PutGroupCharactersBodySchema>;

/**
 * svc.group.get-characters: one of the owner's groups' map (not_found for any other group).
 * `infer` false skips reading sessions for suggestions (what the AI services ask: they infer
 * from the transcript at hand themselves).
 */
export const getGroupCharactersRpc = rpc(
  'group',
  'get-characters',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    infer: Type.Optional(Type.Boolean()),
  }),
  GroupCharactersSchema,
);

/** svc.group.put-characters: replaces the user's map; answers it as stored (with suggestions). */
export const putGroupCharactersRpc = rpc(
  'group',
  'put-characters',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    links: Type.Array(CharacterLinkSchema, { maxItems: CHARACTER_LINKS_MAX }),
  }),
  GroupCharactersSchema,
);

const INTRODUCTION =
  /\b(?:I(?:'m| am) playing|I play|I'll be playing|playing as|my character(?:'s name)? is|my name is)\s+(?:an?\s+|the\s+)?([\p{Lu}][\p{L}'’-]+(?:\s+[\p{Lu}][\p{L}'’-]+)?)/gu;
const VOCATIVE_START = /^([\p{Lu}][\p{L}'’-]{2,})(?:\s+and\s+[\p{Lu}][\p{L}'’-]{2,})?,\s/u;
const VOCATIVE_END = /,\s+([\p{Lu}][\p{L}'’-]{2,})[?!.]?$/u;
// "Meanwhile, Frankie, what are you doing?": a name between commas, then a question to them.
const VOCATIVE_MID =
  /(?:^|[,.!?]\s+)([\p{Lu}][\p{L}'’-]{2,}),\s+(?:what|how|where|are|do|did|can|will|would|you|your|roll|make|give)\b/u;
// A player telling what their character does, in the third person: "Nora opens hers",
// "Brother Ilo meditates", "Jax gets us off the ground" (a name, then a lower-case word).
// In the present tense, as a player tells a move ("Molly would want..." is talk about someone).
const THIRD_PERSON =
  /^(?:[\p{Lu}][\p{L}'’-]+\s+)?([\p{Lu}][\p{L}'’-]{2,})\s+(?:\p{Ll}+ly\s+|just\s+|then\s+|also\s+|still\s+)?\p{Ll}+s\b/u;
/** How many lines a player starts so with one name before that name is taken as theirs. */
const THIRD_PERSON_MIN = 3;
// Whose turn it is in a fight: "That brings us to Vex!", "Percy, you're up." (Not "Toya's turn":
// a creature of the game master's has turns too.)
const TURN =
  /\bbrings? us (?:back )?to ([\p{Lu}][\p{L}'’-]{2,})[.!]|(?:^|[.!?,]\s+)([\p{Lu}][\p{L}'’-]{2,}),? you['’]re up\b/u;
// The game master asks a player who they are: "And Finn, who are you?", "And Rosie?" (naming the
// next speaker), or who holds a part ("Who is the captain?", answered "Me. ...").
const WHO_ARE_YOU = /\bwho are you\b[^.!?]*\?\s*$/i;
const AND_YOU = /(?:^|[.!?]\s+)And\s+([\p{Lu}][\p{L}'’-]+)\?\s*$/u;
const WHO_HOLDS = /\bwho(?:['’]s| is| plays)\s+(?:the|our|playing)\b[^.!?]*\?\s*$/i;
// The answer, a name first: "Cannonball Jack!", "Me. Captain Ruby Redboots.", "I'm Nell Ash.".
const ANSWER =
  /^(?:(Me|I am|I['’]m|It['’]s me)[.!,]?\s+)?((?:[\p{Lu}][\p{L}'’-]+\s+){0,3}[\p{Lu}][\p{L}'’-]+)(?=[.!?,]|$)/u;
// Titles said before a character's name, not part of it: "Captain Ruby", "Princess Daisy".
const TITLES = new Set(
  `captain princess prince sir lady lord dame king queen doctor dr mister mr mrs miss ms master
  brother sister father mother pirate agent detective professor sergeant`.split(/\s+/),
);
const NOT_A_NAME = new Set(
  `okay ok yeah yes no so well all right now then alright guys everyone everybody sure and but
  wait look hey oh ah also actually meanwhile suddenly as you hello welcome good great cool
  nice awesome thanks thank sorry please fine roll make go hold give take however because though
  unfortunately luckily maybe perhaps still just right`.split(/\s+/),
);

function nameOk(name: string): boolean {
  return !NOT_A_NAME.has(name.toLowerCase()) && name !== name.toUpperCase();
}

/**
 * Speaker-to-character links found in a transcript, strongest first, at most one character
 * per speaker and one speaker per character. The narrator (who speaks most) plays no character.
 */
export function inferCharacterMap(transcript: string): InferredCharacterLink[] {
  const lines = parseTranscriptLines(transcript)
    .map((l) => ({ speaker: speakerLabel(l.speaker), text: l.text.trim() }))
    .filter((l) => l.text);
  const words = new Map<string, number>();
  for (const l of lines) {
    if (l.speaker) words.set(l.speaker, (words.get(l.speaker) ?? 0) + l.text.split(/\s+/).length);
  }
  const narrator = [...words.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  const votes = new Map<
    string,
    { speaker: string; character: string; intro: number; addressed: number; third: number }
  >();
  const vote = (speaker: string, character: string, kind: 'intro' | 'addressed' | 'third') => {
    const key = `${speaker}\u0000${character}`;
    const v = votes.get(key) ?? { speaker, character, intro: 0, addressed: 0, third: 0 };
    v[kind] += 1;
    votes.set(key, v);
  };
  const speakerNames = new Set([...words.keys()].map((s) => s.toLowerCase()));
  // A name is written capitalised: "Here, take it" and "See, I told you" are not names, as
  // "here" and "see" show more often in lower case.
  const cased = new Map<string, number>();
  for (const l of lines) {
    for (const m of l.text.matchAll(/[\p{L}][\p{L}'’-]{2,}/gu)) cased.set(m[0], (cased.get(m[0]) ?? 0) + 1);
  }
  const written = (name: string) => (cased.get(name.toLowerCase()) ?? 0) < (cased.get(name) ?? 0);
  // A name told in the third person must also be a proper name of the text (capitalised
  // mid-sentence, not a common word): "We've", "Let's" and "Damn" start lines too.
  let proper: Set<string> | undefined;
  const properName = (name: string) => {
    proper ??= new Set(
      extractProperNames([{ text: lines.map((l) => l.text).join('\n') }], {
        limit: 300,
        minCount: 1,
        subjects: true,
      }).flatMap((n) => n.name.split(' ')),
    );
    return proper.has(name);
  };
  for (const [i, l] of lines.entries()) {
    if (!l.speaker || l.speaker.includes(' and ')) continue;
    if (l.speaker !== narrator) {
      for (const m of l.text.matchAll(INTRODUCTION)) {
        const name = m[1]!.split(/\s+/)[0]!.replace(/[,.!?]+$/, '');
        if (nameOk(name) && !speakerNames.has(name.toLowerCase())) vote(l.speaker, name, 'intro');
      }
      const third = THIRD_PERSON.exec(l.text)?.[1];
      if (third && nameOk(third) && !speakerNames.has(third.toLowerCase())) vote(l.speaker, third, 'third');
    }
    // The game master (or a player, in character) turns to someone by name; whoever answers
    // next plays them.
    const next = lines[i + 1];
    const answered =
      next?.speaker && next.speaker !== l.speaker && next.speaker !== narrator
        ? answerName(l.text, next)
        : null;
    if (answered && nameOk(answered) && !speakerNames.has(answered.toLowerCase()))
      vote(next!.speaker!, answered, 'intro');
    if (
      !next?.speaker ||
      next.speaker === narrator ||
      next.speaker === l.speaker ||
      next.speaker.includes(' and ')
    )
      continue;
    const sentences = l.text.split(/(?<=[.!?])\s+/);
    const last = sentences.at(-1) ?? '';
    const turn = TURN.exec(sentences.slice(-2).join(' '));
    const name = [
      VOCATIVE_START.exec(last)?.[1],
      VOCATIVE_END.exec(last)?.[1],
      turn ? (turn[1] ?? turn[2]) : undefined,
      VOCATIVE_MID.exec(last)?.[1],
      VOCATIVE_START.exec(l.text)?.[1],
    ].find((n) => n !== undefined && nameOk(n) && !speakerNames.has(n.toLowerCase()));
    if (name) vote(next.speaker, name, 'addressed');
  }
  const scored = [...votes.values()]
    .map((v) => ({ ...v, score: v.intro * 5 + v.addressed + v.third }))
    .filter(
      (v) =>
        v.intro > 0 ||
        (v.addressed >= 2 && written(v.character)) ||
        (v.third >= THIRD_PERSON_MIN && written(v.character) && properName(v.character)),
    )
    .sort((a, b) => b.score - a.score);
  // How often a name is addressed to anyone: a name answered by many players is no one's.
  const byName = new Map<string, number>();
  for (const v of scored) byName.set(v.character, (byName.get(v.character) ?? 0) + v.score);
  const out: InferredCharacterLink[] = [];
  const usedSpeakers = new Set<string>();
  const usedCharacters = new Set<string>();
  for (const v of scored) {
    if (usedSpeakers.has(v.speaker) || usedCharacters.has(v.character)) continue;
    const share = v.score / byName.get(v.character)!;
    if (v.intro === 0 && share < 0.5) continue;
    usedSpeakers.add(v.speaker);
    usedCharacters.add(v.character);
    out.push({
      speaker: v.speaker,
      character: v.character,
      confidence: Math.min(1, (v.intro > 0 ? 0.6 : 0.2) + 0.1 * v.addressed + 0.05 * v.third) * share,
      evidence:
        v.intro > 0
          ? `introduced themselves as ${v.character}`
          : v.addressed >= v.third
            ? `answered when the game master addressed ${v.character} (${v.addressed} times)`
            : `told what ${v.character} does (${v.third} times)`,
    });
  }
  return out;
}

/**
 * The name a player gives when the game master asks who they are ("And Finn, who are you?" /
 * "Cannonball Jack!"; "And Rosie?" / "Princess Daisy."; "Who is the captain?" / "Me. Captain
 * Ruby Redboots."), without the titles before it; null when the line asks no such thing.
 */
function answerName(asked: string, next: { speaker: string | null; text: string }): string | null {
  const toThem = AND_YOU.exec(asked)?.[1]?.toLowerCase() === next.speaker?.toLowerCase();
  const m = ANSWER.exec(next.text);
  if (!m) return null;
  if (!(WHO_ARE_YOU.test(asked) || toThem || (WHO_HOLDS.test(asked) && m[1]))) return null;
  const words = m[2]!.split(/\s+/);
  while (words.length > 1 && TITLES.has(words[0]!.toLowerCase())) words.shift();
  return words.join(' ');
}

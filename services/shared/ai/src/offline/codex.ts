/**
 * The offline codex: what one session's transcript establishes about the campaign's people,
 * places, items, factions and open threads, read from how names are used. A name is a proper
 * name of the text (`extractProperNames`: capitalised where grammar does not explain it, not a
 * common word); the party (speakers and the Who Is Who map) is kept apart; then each use of it
 * is read (codex-cues.ts): a title or a verb of speech makes it someone, a preposition of place
 * somewhere ("the people of X", "away from X" too), "half of X" a group, a head noun a place,
 * thing or group, "cast", "fire" or a rules noun ("X's dice") a spell, weapon or rule (left out).
 * Left out too: what the table says before the narrator opens the game, after it is closed, during
 * a break or amid talk about the show; a likeness ("like Prince X"); a thing owned ("my X"); someone
 * the narrator thanks or hails (at the table, not in the story); a name only the players say, once
 * or twice. A name with no sign is left out unless it is already in the codex or is named often by
 * the narrator amid the story. Nothing here knows a game system, a show or its names.
 */
import {
  CODEX_MENTIONS_PER_SESSION,
  extractProperNames,
  inferCharacterMap,
  type CodexFinding,
  type CodexKind,
  type KnownEntry,
} from '@chronicler/contracts';
import type { CodexExtractInput } from '../engine.ts';
import { partyNames } from '../party.ts';
import {
  AIMED_AT_BEFORE,
  CAST_BROKEN_BEFORE,
  FROM_PLACE_BEFORE,
  GROUP_BEFORE,
  HAILED_BEFORE,
  headNounKind,
  INTRODUCED_BEFORE,
  LANGUAGE_BEFORE,
  LIKENESS_BEFORE,
  namedByRole,
  OF_PLACE_BEFORE,
  ON_PLACE_BEFORE,
  ON_SOMEONE_BEFORE,
  OWNED_BEFORE,
  PERSON_AFTER,
  PERSON_POSSESSIVE,
  PLACE_BEFORE,
  PLACE_NOUN_AFTER,
  PLACE_NOUN_BEFORE,
  RULES_AFTER,
  RULES_LINE,
  SPELL_BEFORE,
  THING_AFTER,
  THING_BEFORE,
  WIELDED_BEFORE,
  WHERE_AFTER,
  WHERE_BEFORE,
  givenNamesAlone,
  placesCalled,
  TITLE_BEFORE,
  VESSEL_BEFORE,
} from './codex-cues.ts';
import {
  codexLines,
  INTERJECTIONS,
  outOfGameLines,
  partyOf,
  showTalkLines,
  storyResumes,
  turnTakers,
  type CodexLine,
} from './codex-table.ts';
import { codexThreads } from './codex-threads.ts';
import {
  CONDITION_BEFORE,
  fullNames,
  householdPet,
  inflectedIn,
  movesIn,
  noOneAlone,
  PRONOUN_AFTER,
  STAT_AFTER,
  STAT_BEFORE,
  theNames,
  VOICED_AFTER,
  VOICED_BEFORE,
} from './codex-rules.ts';

export { codexLines, type CodexLine };

interface Use {
  line: CodexLine;
  /** Where in the line the name starts. */
  from: number;
  before: string;
  after: string;
}

interface Signs {
  count: number;
  person: number;
  place: number;
  spell: number;
  rulesLines: number;
  outOfGame: number;
  narrator: number;
  the: number;
  /** Uses followed by another capitalised name: a title ("Ironkeeper Gradim"), not a name. */
  titled: number;
  /** Introductions and titles: enough for a name said once. */
  strong: number;
  /** Spoken or read as a language ("speaks Dwarvish"). */
  language: number;
  /** Owned ("my Aramente"): a thing, a rite, a pet. */
  owned: number;
  /** Named as a likeness ("like Prince Humperdink"): someone of another story, not met. */
  likeness: number;
  /** Thanked or spoken to by the narrator, who speaks to the table, not to the people met. */
  narratorAddressed: number;
  /** A group's use: "half of X", "my companions, X". */
  group: number;
  /** Starting a sentence before a lower-case word ("Kane blinks"): it acts, as someone does. */
  subject: number;
  /** Named as a vessel: "the freighter Lucky Moth". */
  vessel: number;
  /** Said as a verb, capitalised amid a sentence ("have Dominated him"): a power, not a name. */
  inflected: number;
}

/** The fewest uses of a name with no sign of what it is, named by the narrator, to be kept as someone. */
const PLAIN_PERSON_MIN = 4;
const MAX_FINDINGS = 150;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** "Barrow of Seven Stones", "Temple of Sarenrae": a name with "of" whose head is a place, thing or group noun. */
function ofNames(text: string): string[] {
  const counts = new Map<string, number>();
  const re =
    /(?<![\p{L}])(\p{Lu}[\p{L}'’-]+(?: \p{Lu}[\p{L}'’-]+)?) of (?:the )?(\p{Lu}[\p{L}'’-]+(?: \p{Lu}[\p{L}'’-]+)?)/gu;
  for (const m of text.matchAll(re)) {
    const name = m[0];
    if (headNounKind(name) === null || /^(?:The|A|An)\s/.test(name)) continue;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n >= 2).map(([name]) => name);
}

/** A sentence of `text` around `at`, cut to a readable length. */
function sentenceAt(text: string, at: number, max = 240): string {
  const start = Math.max(0, ...['. ', '! ', '? '].map((p) => text.lastIndexOf(p, at) + 2));
  const ends = ['. ', '! ', '? '].map((p) => text.indexOf(p, at)).filter((i) => i >= 0);
  const end = ends.length ? Math.min(...ends) + 1 : text.length;
  const s = text.slice(start > 1 ? start : 0, end).trim();
  return s.length <= max ? s : `${s.slice(0, max).replace(/\s+\S*$/, '')} …`;
}

/** At most `n` of the uses, spread over the session, the first always among them. */
function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}

export function extractCodexOffline(input: CodexExtractInput): CodexFinding[] {
  return extractCodexSigned(input).map(({ kind, name, aliases, description, count, mentions }) => ({
    kind,
    name,
    aliases,
    description,
    count,
    mentions,
  }));
}

/** The findings with the signs each rests on (kept beside them while they are chosen and merged). */
function extractCodexSigned(input: CodexExtractInput): (CodexFinding & { signs?: Signs })[] {
  const lines = codexLines(input.transcript).filter((l) => l.text);
  if (lines.length === 0) return [];
  const characters = input.characters?.length ? input.characters : inferCharacterMap(input.transcript);
  const isParty = partyOf([...partyNames(input.transcript, characters), ...turnTakers(lines)]);
  const words = new Map<string, number>();
  for (const l of lines) {
    if (l.speaker) words.set(l.speaker, (words.get(l.speaker) ?? 0) + l.text.split(/\s+/).length);
  }
  const speakers = [...words].sort((a, b) => b[1] - a[1]);
  // The narrator (the game master) speaks most; with a single speaker there is no telling.
  const narrator = speakers.length > 1 ? speakers[0]![0] : null;
  const oogLines = outOfGameLines(lines, narrator);
  const resumes = new Map<number, number>();
  const talk = showTalkLines(lines);
  for (const l of lines) if (talk[l.pos]) resumes.set(l.pos, storyResumes(l));
  // A use is out of the game on such a line, unless the story picks up before it on the line.
  const outOfGame = (u: Use) =>
    oogLines[u.line.pos]! && !((resumes.get(u.line.pos) ?? -1) >= 0 && u.from >= resumes.get(u.line.pos)!);
  const known = new Map<string, KnownEntry>();
  for (const k of input.known ?? []) {
    for (const n of [k.name, ...k.aliases]) known.set(n.toLowerCase(), k);
  }

  const text = lines.map((l) => l.text).join('\n');
  const learned = extractProperNames([{ text }], { limit: 300, minCount: 1, subjects: true });
  const names = new Set(learned.map((n) => n.name));
  for (const n of ofNames(text)) names.add(n);
  for (const n of placesCalled(text)) names.add(n);
  for (const n of theNames(text)) names.add(n);
  for (const n of givenNamesAlone(learned, lines)) names.add(n);
  const titles = titlesOf(names, text);
  const inMove = movesIn(lines, text);
  for (const n of known.keys()) {
    const k = known.get(n)!;
    for (const spelled of [k.name, ...k.aliases]) if (spelled.toLowerCase() === n) names.add(spelled);
  }
  // "Caduceus Clay" of the party, said so twice at least: someone called "Clay" (or "Mr. Clay")
  // is the party too (somewhere called so is not: "Tiberius Kraghammer" is a joke on a city).
  const surnames = learned.flatMap(({ name, count }) => {
    const words = name.split(' ');
    return words.length === 2 && count >= 2 && isParty(words[0]!) && headNounKind(name) === null
      ? [words[1]!]
      : [];
  });
  const candidates = [...names]
    .filter((n) => !isParty(n) && !INTERJECTIONS.has(n.toLowerCase()) && !known.get(n.toLowerCase())?.hidden)
    .sort((a, b) => b.length - a.length);

  // Each use belongs to the longest name it is part of ("Nostoc Greyspine" before "Greyspine").
  const taken = new Map<number, [number, number][]>();
  const uses = new Map<string, Use[]>();
  for (const name of candidates) {
    const pattern = new RegExp(
      `(?<![\\p{L}\\p{N}])${escape(name).replace(/['’]/g, "['’]")}(?![\\p{L}\\p{N}])`,
      'gu',
    );
    const found: Use[] = [];
    const spansOf: [number, [number, number]][] = [];
    for (const l of lines) {
      for (const m of l.text.matchAll(pattern)) {
        const from = m.index;
        const to = from + m[0].length;
        if ((taken.get(l.pos) ?? []).some(([a, b]) => from < b && to > a)) continue;
        spansOf.push([l.pos, [from, to]]);
        found.push({
          line: l,
          from,
          before: l.text.slice(Math.max(0, from - 48), from),
          after: l.text.slice(to, to + 48),
        });
      }
    }
    // A longer name said once with no sign ("Oran Blackfoot.") leaves its use to its last word,
    // the surname ("Blackfoot"), not to its first ("Influence" of "Influence People").
    const once =
      found.length === 1 &&
      name.includes(' ') &&
      !known.has(name.toLowerCase()) &&
      headNounKind(name) === null &&
      signsOf(name, found, outOfGame, narrator, titles, inMove).strong === 0;
    if (once) {
      const [pos, [from]] = spansOf[0]!;
      taken.set(pos, [...(taken.get(pos) ?? []), [from, from + name.lastIndexOf(' ')]]);
    }
    if (found.length === 0 || once) continue;
    for (const [pos, span] of spansOf) taken.set(pos, [...(taken.get(pos) ?? []), span]);
    uses.set(name, found);
  }

  const findings: (CodexFinding & { signs: Signs })[] = [];
  for (const [name, us] of uses) {
    const prior = known.get(name.toLowerCase());
    const signs = signsOf(name, us, outOfGame, narrator, titles, inMove);
    // Named once: only when introduced, titled, or a place, thing or group by its very name.
    if (!prior && us.length < 2 && signs.strong === 0 && headNounKind(name) === null) continue;
    // The family's dog barking at the window: out of the game, whatever it is called.
    if (!prior && householdPet(us)) continue;
    const kind = kindOf(name, signs, prior);
    if (!kind || (kind === 'person' && !prior && surnames.includes(name))) continue;
    // Its moments and description come from the story, where it has uses there.
    const inGame = us.filter((u) => !outOfGame(u));
    const sorted = [...(inGame.length ? inGame : us)].sort((a, b) => a.line.pos - b.line.pos);
    findings.push({
      kind,
      name: prior?.name ?? name,
      aliases: [],
      description: describe(name, sorted, narrator),
      count: us.length,
      mentions: spread(sorted, CODEX_MENTIONS_PER_SESSION).map((u) => ({
        line: u.line.pos,
        seconds: u.line.seconds,
      })),
      signs,
    });
  }
  const merged = mergeGivenNames(findings);
  fullNames(merged, candidates);
  const threads = codexThreads(
    lines,
    merged.map((f) => f.name),
    narrator,
    oogLines,
  );
  return [...merged, ...threads].sort((a, b) => b.count - a.count).slice(0, MAX_FINDINGS);
}

/**
 * Words that stand before names as titles, and the names without them: a rank or form of address
 * (TITLE_BEFORE: "Sergeant Patrick Doyle"), or a word never a name alone that stands before a
 * name also said alone ("Broker Quell" and "Quell", "Old Nessa" and "Nessa") or before several
 * names ("Brother Jonas", "Brother Ilo"). A name whose head is a place, thing or group noun
 * ("Tessaly Station") keeps its first word. `names` is rewritten: the titled form is left out,
 * so that each use reads the title right before the name.
 */
function titlesOf(names: Set<string>, text: string): RegExp | null {
  const firstWords = new Map<string, Set<string>>();
  for (const n of names) {
    const m = /^(\p{Lu}[\p{L}'’-]*) (.+)$/u.exec(n);
    // "The Elder Brain" is a thing's name, not a title and a name.
    const article = new RegExp(`\\b(?:the|an?)\\s+${escape(n)}`, 'i').test(text);
    if (!m || headNounKind(n) !== null || / of /.test(n) || article) continue;
    const rests = firstWords.get(m[1]!) ?? new Set<string>();
    rests.add(m[2]!);
    firstWords.set(m[1]!, rests);
  }
  const titles = new Set<string>();
  for (const [word, rests] of firstWords) {
    const rank = TITLE_BEFORE.test(`${word} `);
    if (!rank) continue;
    titles.add(word);
    for (const rest of rests) {
      names.delete(`${word} ${rest}`);
      names.add(rest);
    }
  }
  return titles.size ? new RegExp(`\\b(?:${[...titles].map(escape).join('|')})\\s+$`) : null;
}

function signsOf(
  name: string,
  us: Use[],
  outOfGame: (u: Use) => boolean,
  narrator: string | null,
  titles: RegExp | null,
  inMove: (name: string, u: Use) => boolean,
): Signs {
  const s: Signs = {
    count: us.length,
    person: 0,
    place: 0,
    spell: 0,
    rulesLines: 0,
    outOfGame: 0,
    narrator: 0,
    the: 0,
    titled: 0,
    strong: 0,
    language: 0,
    owned: 0,
    likeness: 0,
    narratorAddressed: 0,
    group: 0,
    subject: 0,
    vessel: 0,
    inflected: inflectedIn(name, us),
  };
  const titled = (before: string) => TITLE_BEFORE.test(before) || (titles?.test(before) ?? false);
  for (const u of us) {
    const { before, after, line } = u;
    // What the table says outside the story tells nothing of what a name is in it.
    if (outOfGame(u)) {
      s.outOfGame += 1;
      s.count -= 1;
      continue;
    }
    if (GROUP_BEFORE.test(before)) {
      s.group += 1;
      continue;
    }
    const addressed =
      (before.trim() === '' && /^,\s+[^.!?]*\byou/i.test(after)) ||
      (/,\s*$/.test(before) && /^(?:[?!.](?:\s|$)|$)/.test(after));
    if (narrator && line.speaker === narrator && HAILED_BEFORE.test(before)) s.narratorAddressed += 1;
    if (LIKENESS_BEFORE.test(before)) {
      s.likeness += 1;
      continue;
    }
    if (OWNED_BEFORE.test(before)) s.owned += 1;
    if (
      titled(before) ||
      INTRODUCED_BEFORE.test(before) ||
      PERSON_AFTER.test(after) ||
      PERSON_POSSESSIVE.test(after) ||
      AIMED_AT_BEFORE.test(before) ||
      // Spoken to: "Kima, are you all right?", "Thank you, Adra."
      addressed
    )
      s.person += 1;
    const apposition = PLACE_NOUN_BEFORE.test(before) || PLACE_NOUN_AFTER.test(after);
    const role =
      namedByRole(before, after) ||
      (VOICED_BEFORE.test(before) && VOICED_AFTER.test(after)) ||
      PRONOUN_AFTER.test(after);
    const where = WHERE_BEFORE.test(before) || (WHERE_AFTER.test(after) && /\bthe\s+$/.test(before));
    if (VESSEL_BEFORE.test(before)) s.vessel += 1;
    if (role) s.person += 1;
    if (titled(before) || INTRODUCED_BEFORE.test(before) || apposition || role || where) s.strong += 1;
    if (LANGUAGE_BEFORE.test(before)) s.language += 1;
    if (
      (PLACE_BEFORE.test(before) && !AIMED_AT_BEFORE.test(before)) ||
      OF_PLACE_BEFORE.test(before) ||
      FROM_PLACE_BEFORE.test(before) ||
      (ON_PLACE_BEFORE.test(before) && !ON_SOMEONE_BEFORE.test(before)) ||
      apposition ||
      where
    )
      s.place += 1;
    if ((before.trim() === '' || /[.!?]\s+$/.test(before)) && /^\s+\p{Ll}/u.test(after)) s.subject += 1;
    if (
      SPELL_BEFORE.test(before) ||
      STAT_BEFORE.test(before) ||
      STAT_AFTER.test(after) ||
      CONDITION_BEFORE.test(before) ||
      inMove(name, u) ||
      CAST_BROKEN_BEFORE.test(before) ||
      WIELDED_BEFORE.test(before) ||
      THING_AFTER.test(after) ||
      RULES_AFTER.test(after) ||
      THING_BEFORE.test(before)
    )
      s.spell += 1;
    if (/^ \p{Lu}\p{Ll}/u.test(after)) s.titled += 1;
    if (RULES_LINE.test(line.text)) s.rulesLines += 1;
    if (narrator && line.speaker === narrator) s.narrator += 1;
    if (/\bthe\s+$/i.test(before)) s.the += 1;
  }
  return s;
}

function kindOf(name: string, s: Signs, prior: KnownEntry | undefined): CodexKind | null {
  if (prior?.confirmed) return prior.kind;
  // Named mostly while the table talks about the show or before the game: a sponsor, a guest, the show.
  if (s.count === 0 || s.outOfGame >= s.count * 2) return null;
  if (s.language * 3 >= s.count) return null;
  // Named as a likeness ("like Prince Humperdink"): someone of another story.
  if (s.likeness * 2 >= s.count) return null;
  // Cast, used, checked or rolled: a spell, an ability or a rule, whatever else it looks like.
  if (s.spell > 0 && s.spell * 2 >= s.person) return null;
  const head = headNounKind(name);
  // "Run by Oskar Helm, a huge man": a name introduced as someone, though it ends like a thing.
  if (head === 'item' && s.person > 0 && s.strong > 0) return 'person';
  if (head) return head;
  // "The freighter Lucky Moth": a ship, though it is hailed by name.
  if (s.vessel > 0 && s.vessel >= s.person) return 'item';
  // "Ironkeeper Gradim Greyspine": a word that mostly stands before another name is a title.
  if (!name.includes(' ') && s.titled * 5 >= s.count * 2) return null;
  if (s.place >= Math.max(1, s.count * 0.3) && s.place > s.person && s.rulesLines * 2 < s.count)
    return 'place';
  // "The Carvers", "the Ashari": a name used with "the" is a group or a place, not someone.
  if (s.the * 2 >= s.count) return /[^s]s$/.test(name) || s.place === 0 ? 'faction' : 'place';
  // "My Aramente", "your Aramente": owned more often than it acts or is spoken to.
  if (s.owned * 3 >= s.count && s.owned >= s.person) return null;
  // Thanked or spoken to by the narrator, who speaks to the table: someone at it (a guest, a winner).
  if (s.narratorAddressed > 0 && s.narratorAddressed * 2 >= s.person && s.strong === 0) return null;
  // "Half of Vox Machina", "my companions, Vox Machina": a group.
  if (s.group > 0 && s.group >= s.person) return s.place > s.group ? 'place' : 'faction';
  // The game master names the people the party meets; a name only the players say, once or
  // twice, is their talk (a joke, a backstory aside, someone real).
  if (s.person > 0 && s.narrator === 0 && s.count < 3 && !prior) return null;
  if (s.person > 0) return noOneAlone(name, s.inflected) ? null : 'person';
  if (prior) return prior.kind;
  // Somewhere, never someone: "the people of Westruun", "away from Emberhold"; not a name of
  // rules talk ("proficiency in Tech") nor one that mostly acts ("Jax flies us into the Drift").
  // A name said often with one sign of place is someone named once near a place ("anything on X").
  if (
    s.place > 0 &&
    s.count >= 2 &&
    (s.place >= 2 || s.place * 4 >= s.count) &&
    s.rulesLines * 2 < s.count &&
    s.subject * 2 < s.count
  )
    return 'place';
  // No sign either way: kept as someone only when the narrator names it often amid the story.
  if (s.count >= PLAIN_PERSON_MIN && s.narrator * 2 >= s.count && s.rulesLines * 3 < s.count)
    return noOneAlone(name, s.inflected) ? null : 'person';
  return null;
}

/** The first sentence that introduces a name ("named X", "X, the ..."), else the narrator's first, else the first. */
function describe(name: string, uses: Use[], narrator: string | null): string {
  const intro = uses.find(
    (u) =>
      INTRODUCED_BEFORE.test(u.before) ||
      /^,\s+(?:an?|the)\s/i.test(u.after) ||
      /^\s+(?:is|was)\s+(?:an?|the)\s/i.test(u.after),
  );
  const pick = intro ?? uses.find((u) => u.line.speaker === narrator && u.line.speaker !== null) ?? uses[0]!;
  const at = pick.line.text.indexOf(name) >= 0 ? pick.line.text.indexOf(name) : pick.before.length;
  return sentenceAt(pick.line.text, at);
}

/**
 * "Nostoc" and "Nostoc Greyspine", both someone: one entry, the given name an alias; so is a
 * surname said alone or after a title ("Miss Lowe" of "Harriet Lowe"), when one person has it.
 */
function mergeGivenNames<T extends CodexFinding>(findings: T[]): T[] {
  const people = findings.filter((f) => f.kind === 'person' && f.name.includes(' '));
  const out: T[] = [];
  for (const f of findings) {
    const single = f.kind === 'person' && !f.name.includes(' ');
    const bySurname = people.filter((p) => p.name.split(' ').at(-1) === f.name);
    const whole = single
      ? (people.find((p) => p.name.split(' ')[0] === f.name) ??
        (bySurname.length === 1 ? bySurname[0] : undefined))
      : undefined;
    if (!whole) {
      out.push(f);
      continue;
    }
    whole.aliases.push(f.name);
    whole.count += f.count;
    whole.mentions = spread(
      [...whole.mentions, ...f.mentions].sort((a, b) => a.line - b.line),
      CODEX_MENTIONS_PER_SESSION,
    );
  }
  return out;
}

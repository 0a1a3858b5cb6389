/**
 * Text handling shared by the offline engine's summaries, answers and planning replies:
 * transcript lines as sentences with their time and speaker, table-talk detection, sparse
 * TF-IDF vectors, and the named terms (capitalised words) a text keeps returning to.
 */
import { formatOffset, parseTranscriptLines, speakerLabel } from '@chronicler/contracts';
import { STOP_WORDS, tokenize } from '../retrieval.ts';

export interface Sentence {
  /** HH:MM:SS of the line the sentence is on, or null for an untimed line. */
  time: string | null;
  speaker: string | null;
  text: string;
  /** Order of the line in the transcript (0-based, blank lines not counted). */
  line: number;
}

// A sentence ends at . ! ? (or …) followed by space and what looks like a new sentence.
const SENTENCE_END = /(?<=[.!?…]["'”’)]?)\s+(?=["'“‘(]?[\p{Lu}\p{N}])/u;

// Titles and abbreviations whose full stop does not end a sentence ("Dr. Dranzel").
const ABBREVIATION = /(?:^|\s)(?:dr|mr|mrs|ms|st|mt|lt|sgt|capt|gen|prof|sr|jr|vs|etc|e\.g|i\.e)\.$/i;

export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const piece of text.split(SENTENCE_END)) {
    const s = piece.trim();
    if (!s) continue;
    const previous = out.at(-1);
    if (previous !== undefined && ABBREVIATION.test(previous)) out[out.length - 1] = `${previous} ${s}`;
    else out.push(s);
  }
  return out;
}

/** A transcript as sentences, each keeping who said it and when. */
export function transcriptSentences(transcript: string): Sentence[] {
  const out: Sentence[] = [];
  for (const [line, parsed] of parseTranscriptLines(transcript).entries()) {
    const time = parsed.seconds === null ? null : formatOffset(parsed.seconds);
    const speaker = speakerLabel(parsed.speaker);
    for (const text of splitSentences(parsed.text)) out.push({ time, speaker, text, line });
  }
  return out;
}

/** "[00:12:03] MATT: text", "MATT: text" or "text", as the line was stored. */
export function citation(s: { time: string | null; speaker: string | null }, text: string): string {
  return `${s.time ? `[${s.time}] ` : ''}${s.speaker ? `${s.speaker}: ` : ''}${text}`;
}

// Out-of-game chatter at a table: agreement noises, laughter, breaks, dice and stream talk.
const TABLE_TALK_WORDS = new Set(
  `okay ok yeah yes yep yup no nope oh ah um uh hmm huh wow whoa cool nice great awesome sure right
  laughs laughter laughing laugh haha hah lol sorry thanks thank please wait what hey hi hello bye
  guys fine good god dude man`.split(/\s+/),
);
const OUT_OF_GAME =
  /\b(?:break|twitch|twitter|chat(?:room)?|stream|subscribe|sponsor|patreon|giveaway|loot crate|merch|podcast|episode|camera|mic|bathroom|snack|pizza|dice|d20|d\d+|roll(?:ed|ing|s)?|initiative|natural (?:one|1|20)|nat (?:one|1|20)|hit points|spell slot|sneak attack|melee|bonus|damage|cantrip|proficiency|modifier|advantage|saving throw|(?:perception|investigation|insight|athletics|acrobatics|stealth|arcana|history|nature|religion|medicine|survival|persuasion|deception|intimidation|performance|tinkering|constitution|strength|dexterity|wisdom|intelligence|charisma|skill|ability) (?:check|save)s?|(?:make|roll|give me) (?:a|an|me a|me an) (?:\w+ ){0,2}(?:check|save)|keep in mind|armor class|ac|campaign|character sheet|(?:of|in) the game|this game|last game|next game|game master|dm|gm)\b/i;
const STAGE_NOTE =
  /^\(?\s*(?:laugh|cheer|groan|sigh|gasp|applause|music|crosstalk|inaudible)\w*\s*\)?[.!]*$/i;

/**
 * How much a sentence looks like table talk rather than story, from 0 (story) to 1 (pure
 * chatter): the share of its words that are filler, plus out-of-game topics and stage notes.
 */
export function tableTalk(text: string): number {
  if (STAGE_NOTE.test(text.trim())) return 1;
  const words = text.toLowerCase().match(/[\p{L}']+/gu) ?? [];
  if (words.length === 0) return 1;
  const filler = words.filter((w) => TABLE_TALK_WORDS.has(w)).length / words.length;
  return Math.min(1, filler + (OUT_OF_GAME.test(text) ? 0.5 : 0));
}

export type Vector = Map<string, number>;

/** Inverse document frequencies of terms over a list of tokenised documents (smoothed). */
export function inverseDocFreq(docs: string[][]): Map<string, number> {
  const df = new Map<string, number>();
  for (const doc of docs) for (const t of new Set(doc)) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = new Map<string, number>();
  for (const [t, n] of df) idf.set(t, Math.log((1 + docs.length) / (1 + n)) + 1);
  return idf;
}

/** A unit-length TF-IDF vector of a tokenised text. */
export function tfidf(tokens: string[], idf: Map<string, number>): Vector {
  const v: Vector = new Map();
  for (const t of tokens) v.set(t, (v.get(t) ?? 0) + 1);
  let norm = 0;
  for (const [t, tf] of v) {
    const w = (1 + Math.log(tf)) * (idf.get(t) ?? 1);
    v.set(t, w);
    norm += w * w;
  }
  norm = Math.sqrt(norm) || 1;
  for (const [t, w] of v) v.set(t, w / norm);
  return v;
}

/** Cosine of two unit vectors. */
export function cosine(a: Vector, b: Vector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [t, w] of small) {
    const x = large.get(t);
    if (x !== undefined) dot += w * x;
  }
  return dot;
}

// Words that start a sentence in capitals without being names.
const NOT_NAMES = new Set(
  `i i'm i'll i've i'd okay ok yeah yes no oh so and but or then well now all right what when where
  who why how this that these those there here it it's he she they we you my his her their our your
  let's let if as at in on of to for from with by is are was were be do does did can could would
  should will just also maybe like not one two three four five six seven eight nine ten first last
  next after before good great wait look hey thank thanks sorry please mister miss god gods yes
  shit fuck fucking fucked damn damnit dammit hell crap holy jesus christ ugh ew yikes yay hooray
  hello hi bye goodbye everyone everybody someone somebody anyone anybody nobody cool nice awesome sweet perfect fine gosh geez jeez whoa wow ooh aw ah uh um hmm huh
  actually cause because aye nay yo alright anyway anyways honestly seriously apparently obviously`.split(
    /\s+/,
  ),
);
const NAME_WORD = /^[\p{Lu}][\p{L}'’-]*$/u;

/** How often each word is written in lower case in these texts ("lava", not "Lava"). */
export function lowerCaseWords(texts: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts)
    for (const m of text.matchAll(/(?<![\p{L}'’])\p{Ll}[\p{Ll}'’-]*/gu))
      counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  return counts;
}

/**
 * Capitalised names (single words or runs like "Lady Kima", "Firebrook Inn") with how often
 * they occur, most frequent first. A single word at a sentence start counts only when the
 * same name also occurs mid-sentence, so "Then" or "Suddenly" don't pass for names, and a word
 * mostly written in lower case is not one. All-caps speaker
 * tags and the words in `exclude` (e.g. the players' names) are left out.
 */
export function namedTerms(
  texts: string[],
  exclude: Iterable<string> = [],
): { term: string; count: number }[] {
  const excluded = new Set([...exclude].map((e) => e.toLowerCase()));
  const counts = new Map<string, number>();
  const midSentence = new Set<string>();
  const lowered = lowerCaseWords(texts);
  for (const text of texts) {
    for (const sentence of splitSentences(text)) {
      const words = sentence.split(/\s+/);
      let run: string[] = [];
      let runStart = 0;
      const flush = (end: number) => {
        while (run.length > 0 && NOT_NAMES.has(run[0]!.toLowerCase())) {
          run.shift();
          runStart += 1;
        }
        if (run.length > 0 && run.length <= 4) {
          // "Vex's" is Vex; "Slayer's Take" and "Hunter's Mark" keep theirs.
          const term = run.join(' ').replace(/['’]s$/, '');
          const key = term.toLowerCase();
          if (!excluded.has(key) && !STOP_WORDS.has(key) && term.length > 2) {
            counts.set(term, (counts.get(term) ?? 0) + 1);
            if (runStart > 0) midSentence.add(term);
          }
        }
        run = [];
        runStart = end + 1;
      };
      for (const [i, raw] of words.entries()) {
        // "Bag of Holding", "Tal'Dorei of the West": "of" between capitalised words joins them.
        if (raw === 'of' && run.length > 0 && /^[\p{Lu}]/u.test(words[i + 1] ?? '')) {
          run.push(raw);
          continue;
        }
        const word = raw.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
        const endsClause = /[,;:.!?"”)]$/.test(raw);
        const isName = NAME_WORD.test(word) && word !== word.toUpperCase() && !/^["“(]?[a-z]/.test(raw);
        // "D&D Beyond": a name that goes on from a brand written with "&" is the brand.
        const brand = run.length === 0 && /&/.test(words[i - 1] ?? '');
        if (isName && !brand) {
          // A word opening a quote starts what is said ("...whispers, "Stay at bay."").
          if (run.length === 0) runStart = /^["“‘(]/.test(raw) ? 0 : i;
          run.push(word);
          if (endsClause) flush(i);
        } else {
          flush(i);
        }
      }
      flush(words.length);
    }
  }
  // Two capitalised words in a row are a name even at a sentence start ("Nostoc Greyspine").
  // A word the table mostly writes in lower case is a word, not a name ("Lava pools, Lava
  // pools." among thirty mentions of the lava).
  return [...counts.entries()]
    .filter(([term]) => midSentence.has(term) || term.includes(' '))
    .filter(([term, count]) => term.includes(' ') || (lowered.get(term.toLowerCase()) ?? 0) <= 2 * count)
    .map(([term, count]) => ({ term, count }))
    .sort((a, b) => b.count - a.count || a.term.localeCompare(b.term));
}

/** One name written short or long: "Molly" and "Mollymauk", "Beau" and "Beauregard" (single words of 4+ letters). */
export function sameName(a: string, b: string): boolean {
  return (
    !a.includes(' ') &&
    !b.includes(' ') &&
    Math.min(a.length, b.length) >= 4 &&
    (a.startsWith(b) || b.startsWith(a))
  );
}

/** A pattern for a term as a whole word or phrase (in any case, unless `caseSensitive`). */
export function mentionPattern(term: string, caseSensitive = false): RegExp {
  const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, caseSensitive ? 'u' : 'iu');
}

/** Whether a text mentions a term as a whole word or phrase, in any case. */
export function mentions(text: string, term: string): boolean {
  return mentionPattern(term).test(text);
}

/** A text cut to `max` characters at a word boundary, with '…' when cut. */
export function clip(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[,;:\s]+$/, '')}…`;
}

/** The content terms of a text (for overlap measures and matching). */
export function terms(text: string): string[] {
  return tokenize(text);
}

/** Rough token count of a text for usage records (about four characters per token). */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / 4);
}

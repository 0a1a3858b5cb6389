/**
 * Proper names (characters, NPCs, places) found in a campaign's transcripts and summaries,
 * for the speech provider's keyterms. Pure text work with no dependencies, so it lives in
 * contracts: the transcript service (which owns the texts and computes the names) and any
 * other package can use it without pulling in the LLM client of `@chronicler/ai`.
 *
 * A name is a run of capitalised words (at most MAX_NAME_WORDS) that appears at least once
 * where capitals are not explained by grammar (not at the start of a sentence or a line),
 * none of whose words is a common English word, and whose words are not more often written
 * in lower case in the same texts ('Dragon' in 'the dragon'). Speaker tags (`MATT:`) and
 * time stamps (`[01:02:03]`) are stripped first; all-capital words (DM, HP, OK) are never names.
 */

/** The most words one name may have ('Vox Machina', 'Lady Kima of Vord' is cut at 'of'). */
export const MAX_NAME_WORDS = 4;

/** One text to learn from; `weight` counts each occurrence that many times (summaries: more). */
export interface NameSource {
  text: string;
  weight?: number;
}

export interface LearnedName {
  name: string;
  /** Weighted occurrences. */
  count: number;
}

export interface ExtractNamesOptions {
  /** The most names answered (default 100). */
  limit?: number;
  /** Fewer weighted occurrences than this and a name is left out (default 2). */
  minCount?: number;
  /**
   * Also keep a name never said mid-sentence when it starts a sentence as the subject of a verb
   * at least twice ("Doyle admits", "Doyle is big"), or is of two words and more ("Ruth
   * Connelly, a laundress."), and none of its words is ever written in lower case: someone always
   * named first. Off for keyterms; the codex reads each use itself.
   */
  subjects?: boolean;
}

// Words that are capitalised for grammar, not because they name someone: function words,
// the interjections and fillers of spoken play, titles, days and months, pronouns, numbers,
// and the table talk of a game (roll, turn, damage). Kept short: the lower-case test below
// catches the common nouns that a list would otherwise need.
const COMMON = /* @__PURE__ */ new Set(
  (
    'a about above after again against all almost alright also although always am among an and another any anybody ' +
    'anyone anything anyway anyways are around as at aw aww away awesome back bad be because been before behind being ' +
    'below best better between big both but by can cannot come could cool damn dear definitely did do does doing done ' +
    'down during each either else enough even ever every everybody everyone everything except few fine first for from ' +
    'fuck further get go god gonna good gosh got gotta great guys ha had hah haha hahaha has have having he hello her here ' +
    'hers herself hey hi him himself his hm hmm how however huh i if in into is it its itself just kind last later let ' +
    'like little look lot many may maybe me meanwhile mhm might mine more most much must my myself nah need never new next ' +
    'nice no nobody none nope nor not nothing now o oh ok okay on once one only oops or other others otherwise our ours ' +
    'ourselves out over own perfect please pretty probably quite rather really right said same say see seems shall she ' +
    'should shit so some somebody someone something sometimes soon sorry still such sure than thank thanks that the ' +
    'their theirs them themselves then there therefore these they thing things this those though through thus to today ' +
    'together tomorrow tonight too totally uh uhh um umm under unless until up upon us very wait want was wat we well ' +
    'went were what whatever when where whether which while who whoa whoever whole whom whose why will with within ' +
    'without wow would yay yeah yep yes yet you your yours yourself yourselves ' +
    // Numbers and ordinals.
    'two three four five six seven eight nine ten eleven twelve twenty hundred thousand second third fourth fifth ' +
    // Titles and forms of address: the name follows them.
    'mr mrs ms miss dr sir madam lord lady king queen prince princess captain master mister ' +
    // Days and months: proper nouns, but no campaign's.
    'monday tuesday wednesday thursday friday saturday sunday january february march april june july august ' +
    'september october november december ' +
    // Table talk.
    'roll rolled rolling turn round damage attack check save initiative advantage disadvantage natural ' +
    'spell level bonus action reaction okey alrighty episode'
  ).split(/\s+/),
);

const TIME_STAMP = /^\s*\[\d{1,2}:\d{2}(?::\d{2})?\]\s*/;
// A speaker tag at the start of a line: up to four words before a colon ('MATT:',
// 'LAURA and TRAVIS:', 'Speaker 1:'), so a sentence with a colon in it keeps its words.
const SPEAKER_TAG = /^[^\s:][^:\n]{0,39}?:\s+/;
const WORD = /[\p{L}][\p{L}\p{M}'’-]*/gu;
const CONTRACTION = /'(t|m|re|ve|ll|d)$/i;

/** Abbreviated titles whose full stop ends no sentence ("Mrs. Pickering", "Dr. Hartwell"). */
const ABBREVIATION =
  /^(?:mr|mrs|ms|dr|st|mt|jr|sr|prof|capt|sgt|lt|col|gen|rev|fr|hon|gov|pres|adm|cmdr|insp|det)$/i;

/** A stretch of text between two words that keeps a run of capitalised words together. */
const JOINS_RUN = /^ (?:& )?$/;
/** What, between two words, makes the next one start a sentence. */
const ENDS_SENTENCE = /[.!?…:;"“”()[\]—–]|\s-\s|^\s*$/;

interface Token {
  word: string;
  /** What joins it to the word before in the run (' ' or ' & '). */
  sep: string;
  initial: boolean;
}

/** What one line holds: runs of capitalised words (name candidates) and lower-case words. */
type Piece = { kind: 'run'; tokens: Token[]; verb: boolean } | { kind: 'lower'; word: string };

function* piecesOf(line: string): Generator<Piece> {
  let run: Token[] = [];
  let last = -1;
  let initial = true;
  let previous = '';
  // `verb`: a verb follows the run directly ("Doyle admits"), as after a subject.
  const flush = function* (verb = false): Generator<Piece> {
    // A possessive ends the name ("Grog's axe"); inside one it belongs to it ("Hunter's Mark").
    const last = run.at(-1);
    const possessive = last ? /'s$/i.test(last.word) : false;
    if (last) last.word = last.word.replace(/'s$/i, '');
    if (last?.word) yield { kind: 'run', tokens: run, verb: verb && !possessive };
    run = [];
  };
  for (const match of line.matchAll(WORD)) {
    if (last >= 0) {
      const between = line.slice(last, match.index);
      if (!JOINS_RUN.test(between)) {
        yield* flush();
        initial = ENDS_SENTENCE.test(between) && !(/^\.\s+$/.test(between) && ABBREVIATION.test(previous));
      }
    }
    const sep = last >= 0 ? line.slice(last, match.index) : '';
    last = match.index + match[0].length;
    const word = match[0].replace(/’/g, "'").replace(/[-']+$/, '');
    const wasInitial = initial;
    initial = false;
    previous = word;
    if (!/\p{Lu}/u.test(word)) {
      // A verb as a subject's: "Doyle admits", "Kane is", "Hartwell pulls", "Whitcombe knew" ("Hold on" is none).
      yield* flush(/(?:[^s]s|ed|ew|ought|old|ook|ave)$/.test(word));
      yield { kind: 'lower', word: word.replace(/'s$/, '') };
      continue;
    }
    // Capitals for grammar or emphasis (The, Okay, I'm), or all capitals (DM, HP, MATT).
    const bare = word.replace(/'s$/i, '');
    if (COMMON.has(bare.toLowerCase()) || CONTRACTION.test(bare) || !/^\p{Lu}.*\p{Ll}/u.test(word)) {
      yield* flush();
      continue;
    }
    run.push({ word, sep: run.length ? sep : '', initial: wasInitial });
  }
  yield* flush();
}

/** The text without time stamps and speaker tags, one line at a time. */
function linesOf(text: string): string[] {
  return text.split(/\r?\n/).map((line) => line.replace(TIME_STAMP, '').replace(SPEAKER_TAG, ''));
}

/**
 * The proper names of the texts, most frequent first (ties: first seen first), each once
 * whatever its case (the most frequent spelling is kept).
 */
export function extractProperNames(sources: NameSource[], opts: ExtractNamesOptions = {}): LearnedName[] {
  const limit = opts.limit ?? 100;
  const minCount = opts.minCount ?? 2;
  interface Candidate {
    count: number;
    free: number;
    subject: number;
    order: number;
    spellings: Map<string, number>;
    words: string[];
  }
  const candidates = new Map<string, Candidate>();
  // Per word (lower case): weighted occurrences in lower case, and capitalised ones in names.
  const lower = new Map<string, number>();
  const upper = new Map<string, number>();
  let order = 0;
  for (const source of sources) {
    const weight = source.weight ?? 1;
    for (const line of linesOf(source.text)) {
      for (const piece of piecesOf(line)) {
        if (piece.kind === 'lower') {
          lower.set(piece.word, (lower.get(piece.word) ?? 0) + weight);
          continue;
        }
        const run = piece.tokens;
        const name = run.map((t) => t.sep + t.word).join('');
        if (run.length > MAX_NAME_WORDS || name.length > 50) continue;
        const key = name.toLowerCase();
        let c = candidates.get(key);
        if (!c) {
          c = {
            count: 0,
            free: 0,
            subject: 0,
            order: order++,
            spellings: new Map(),
            words: run.map((t) => t.word),
          };
          candidates.set(key, c);
        }
        c.count += weight;
        c.spellings.set(name, (c.spellings.get(name) ?? 0) + weight);
        if (run[0]!.initial) {
          if (piece.verb) c.subject += weight;
          continue;
        }
        c.free += weight;
        for (const t of run) {
          const w = t.word.toLowerCase();
          upper.set(w, (upper.get(w) ?? 0) + weight);
        }
      }
    }
  }
  const names: (LearnedName & { order: number })[] = [];
  for (const [, c] of candidates) {
    if (c.count < minCount) continue;
    if (c.free === 0) {
      // Always first in its sentence: kept only as a subject, twice, never written in lower case.
      // A run of two words and more is kept so too, once: "Ruth Connelly, a laundress."
      const subject = c.subject >= 2 || c.words.length >= 2;
      if (!opts.subjects || !subject || c.words.some((w) => lower.has(w.toLowerCase()))) continue;
    }
    // A word written more often in lower case than capitalised mid-sentence is a common noun
    // ('Dragon' of 'the dragon'); a name is left out when all its words are such nouns.
    const commonNoun = (w: string) => (lower.get(w.toLowerCase()) ?? 0) >= (upper.get(w.toLowerCase()) ?? 0);
    if (c.free > 0 && c.words.every(commonNoun)) continue;
    const [name] = [...c.spellings].sort((a, b) => b[1] - a[1])[0]!;
    names.push({ name, count: c.count, order: c.order });
  }
  names.sort((a, b) => b.count - a.count || a.order - b.order);
  return names.slice(0, limit).map(({ name, count }) => ({ name, count }));
}

/**
 * Offline chat answers about one transcript: the lines that best match the question (BM25
 * through selectPassages) quoted with their times and speakers. The chat drawer's emergency
 * ADVENTURE request gets adventure material built from the transcript instead: the names it
 * keeps mentioning and hooks from its latest unresolved threads.
 */
import type { ChatMessage } from '../engine.ts';
import { STOP_WORDS, tokenize } from '../retrieval.ts';
import { characterMapFor, type CharacterLink, type CharacterMap } from './characters.ts';
import { LineIndex, searchTerm, searchTerms, transcriptLines, type Line, type LineHit } from './search.ts';
import { joinList } from './summarize.ts';
import {
  citation,
  clip,
  lowerCaseWords,
  mentions,
  namedTerms,
  sameName,
  splitSentences,
  tableTalk,
  transcriptSentences,
  type Sentence,
} from './text.ts';

export const OFFLINE_ANSWER_NOTE =
  '_Offline answer (no AI model is configured): the transcript line that best answers your question, with its time._';
export const OFFLINE_ADVENTURE_NOTE =
  '_Offline adventure ideas (no AI model is configured): names and open threads found in the transcript._';

/** Quoted lines are cut to this length around the sentence that answers. */
const MAX_QUOTE_CHARS = 400;

/**
 * The chat drawer's emergency button sends a fixed request for adventure content; any
 * message shouting ADVENTURE, or asking for emergency adventure content, is taken as one.
 */
export function isAdventureRequest(question: string): boolean {
  return /\bADVENTURE\b/.test(question) || /\bemergency\b[\s\S]*\badventure\b/i.test(question);
}

export function answerText(input: {
  transcriptName: string;
  transcript: string;
  question: string;
  history: ChatMessage[];
  characters?: CharacterLink[];
}): string {
  if (isAdventureRequest(input.question)) return adventureText(input.transcriptName, input.transcript);

  let query = input.question;
  // A follow-up like "and then?" has no terms of its own: it is about the previous question.
  if (searchTerms(query).length === 0) {
    const previous = [...input.history]
      .reverse()
      .find((m) => m.role === 'user' && searchTerms(m.content).length > 0);
    if (previous) query = `${previous.content} ${query}`;
  }
  const none = `${OFFLINE_ANSWER_NOTE}\n\nI couldn't find anything in ${input.transcriptName} that matches your question. Try rephrasing it with the names, places or words used in the session.`;
  if (searchTerms(query).length === 0) return none;

  const found = findAnswer(input.transcript, query, input.characters);
  if (!found) return none;
  const { answer, lines, hits, map } = found;
  const quote = (l: Line, text: string) => {
    const character = map.characterOf(l.speaker);
    const who = l.speaker ? `${l.speaker}${character ? ` (${character})` : ''}: ` : '';
    return `> ${l.time ? `[${l.time}] ` : ''}${who}${text}`;
  };
  const line = lines[answer.pos]!;
  const out = [
    OFFLINE_ANSWER_NOTE,
    '',
    `The line of ${input.transcriptName} that best answers it${line.time ? `, at [${line.time}]` : ''}:`,
    '',
    quote(line, excerptAround(line.text, answer.sentence, found.terms)),
  ];
  const around = [answer.pos - 1, answer.pos + 1]
    .map((p) => lines[p])
    .filter((l): l is Line => Boolean(l) && tableTalk(l!.text) < 0.9);
  if (around.length > 0) {
    out.push('', 'Around it:', '', ...around.map((l) => quote(l, excerptAround(l.text, '', found.terms))));
  }
  const others = hits
    .filter((h) => Math.abs(h.pos - answer.pos) > 1)
    .slice(0, 3)
    .map((h) => lines[h.pos]!)
    .sort((a, b) => a.pos - b.pos);
  if (others.length > 0) {
    out.push(
      '',
      'Other lines that match:',
      '',
      ...others.map((l) => quote(l, excerptAround(l.text, '', found.terms))),
    );
  }
  return out.join('\n');
}

// Capitalised words that are not names: sentence openers and table words.
const NOT_NAMES = new Set(
  'okay sure yeah yep nope wait look hey right good great cool nice wow god sorry thanks please maybe also actually roll make'.split(
    ' ',
  ),
);

type QuestionType = 'name' | 'count' | 'who' | 'when' | 'what';

export function questionType(question: string): QuestionType {
  const q = question.toLowerCase();
  if (/\bhow (?:many|much)\b|\bnumber of\b|\bhow (?:long|far|old)\b/.test(q)) return 'count';
  if (/\b(?:name[ds]?|call(?:ed|s)?)\b/.test(q) && /\bwhat\b|\bwhich\b/.test(q)) return 'name';
  if (/^\s*(?:who|whom|whose)\b/.test(q)) return 'who';
  if (/^\s*when\b/.test(q)) return 'when';
  return 'what';
}

const NUMBER =
  /\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|dozen|half)\b/i;

export interface FoundAnswer {
  answer: { pos: number; sentence: string; score: number };
  lines: Line[];
  hits: LineHit[];
  terms: Set<string>;
  map: CharacterMap;
}

/**
 * The sentence that answers a question: the best BM25 windows, then within each window (the
 * matching line, the one before, the two after) the sentence that fits the question's type: a
 * new name for "what name", a number for "how many", a person for "who", what followed for
 * "what happened".
 */
export function findAnswer(
  transcript: string,
  question: string,
  characters?: CharacterLink[],
): FoundAnswer | null {
  const lines = transcriptLines(transcript);
  if (lines.length === 0) return null;
  const map = characterMapFor(transcript, characters);
  const index = new LineIndex(lines, map);
  const type = questionType(question);
  // A name is a small thing to find: the line that gives it rarely repeats the question's
  // words ("You hop on your mustang." "I do. Shelby."), so more windows are read for one.
  const hits = index.search(question, type === 'name' ? 20 : 8);
  if (hits.length === 0) return null;
  const terms = new Set(searchTerms(question));
  const asked = new Set([...question.matchAll(/[\p{L}'’]+/gu)].map((m) => m[0].toLowerCase()));
  // The table's own names (players, their characters) are not the name a question asks for.
  const table = new Set(lines.flatMap((l) => (l.speaker ? [l.speaker.toLowerCase()] : [])));
  const known = (word: string) => table.has(word.toLowerCase()) || map.speakerOf(word) !== null;
  // A sentence's first word is capitalised anyway: it is a name when it is capitalised inside
  // a sentence too, or is a sentence of its own that is never written in lower case ("Shelby."
  // is, "Drops a couple of horse apples." and "Correctly hit a horse!" are not).
  // (The whole transcript is read for it once, and only when a sentence asks.)
  let cases: { lowered: Map<string, number>; capitalised: Set<string> } | null = null;
  const opensAsName = (word: string, sentence: string) => {
    if (!cases) {
      const texts = lines.map((l) => l.text);
      const capitalised = texts.flatMap((t) =>
        [...t.matchAll(/(?<=[\p{L},;] )\p{Lu}[\p{Ll}'’-]+/gu)].map((m) => m[0].toLowerCase()),
      );
      cases = { lowered: lowerCaseWords(texts), capitalised: new Set(capitalised) };
    }
    const w = word.toLowerCase();
    return cases.capitalised.has(w) || (!cases.lowered.has(w) && sentence.split(/\s+/).length <= 2);
  };
  // The names a sentence gives that the question and the table don't already know.
  const namesIn = (sentence: string) =>
    [...` ${sentence}`.matchAll(/(?<=[\s"“(])[\p{Lu}][\p{Ll}'’-]+/gu)].filter(
      (m) =>
        !asked.has(m[0].toLowerCase()) &&
        !terms.has(searchTerm(m[0]) ?? '') &&
        !STOP_WORDS.has(m[0].toLowerCase()) &&
        !NOT_NAMES.has(m[0].toLowerCase()) &&
        !known(m[0].replace(/['’]s$/, '')) &&
        (m.index !== 1 || opensAsName(m[0], sentence)),
    ).length;
  const top = hits[0]!.score;
  let best: FoundAnswer['answer'] | null = null;
  for (const hit of hits) {
    if (hit.score < top * (type === 'name' ? 0.2 : 0.3)) break;
    for (let pos = hit.pos - 1; pos <= hit.pos + 2; pos++) {
      const line = lines[pos];
      if (!line) continue;
      const offset = pos - hit.pos;
      const proximity = offset === 0 ? 1 : offset === 1 ? 0.75 : 0.5;
      for (const sentence of splitSentences(line.text)) {
        const own = searchTerms(sentence);
        const overlap = own.filter((t) => terms.has(t)).length / Math.max(1, terms.size);
        const newNames = type === 'name' || type === 'who' ? namesIn(sentence) : 0;
        const words = sentence.split(/\s+/).length;
        let fit = 0;
        // A name offered in a question ("Is its name Roy?") is a guess, not an answer; "that
        // tavern called The Leaky Nip?" still gives one.
        const named =
          newNames > 0 && (!/\?["”’']?$/.test(sentence) || /\b(?:called|named)\b/i.test(sentence));
        if (type === 'name' && named) fit = 0.8 + (words <= 8 ? 0.4 : 0);
        if (type === 'count' && NUMBER.test(sentence)) fit = 0.9;
        if (type === 'who' && (newNames > 0 || map.characterOf(line.speaker))) fit = 0.5;
        if (type === 'what' && offset > 0 && tableTalk(sentence) < 0.4 && own.length >= 3) fit = 0.3;
        if (type === 'what' && overlap > 0 && words >= 8) fit += 0.4;
        const talk = tableTalk(sentence);
        // A name question wants a name: a sentence without one answers it only when nothing
        // else does. Other questions (but counts) want more than a few words.
        const typed = type === 'name' ? (named ? 1 : 0.3) : type !== 'count' && words < 4 ? 0.4 : 1;
        const score =
          (hit.score / top) *
          proximity *
          (0.6 + overlap + fit) *
          (1 - 0.6 * talk) *
          (own.length === 0 ? 0.3 : 1) *
          typed;
        if (!best || score > best.score) best = { pos, sentence, score };
      }
    }
  }
  return best ? { answer: best, lines, hits, terms, map } : null;
}

/**
 * A line short enough to quote: whole when short, else the answering sentence (or the ones
 * holding the question's terms) with its neighbours, cut between sentences so a number or a
 * name in them is never cut off.
 */
function excerptAround(text: string, sentence: string, terms: Set<string>): string {
  if (text.length <= MAX_QUOTE_CHARS) return text;
  const sentences = splitSentences(text);
  let at = sentence ? sentences.indexOf(sentence) : -1;
  if (at < 0) at = sentences.findIndex((s) => searchTerms(s).some((t) => terms.has(t)));
  if (at < 0) return clip(text, MAX_QUOTE_CHARS);
  let from = at;
  let to = at;
  let size = sentences[at]!.length;
  while (true) {
    const next = sentences[to + 1];
    const prev = sentences[from - 1];
    if (next && size + next.length + 1 <= MAX_QUOTE_CHARS) {
      to += 1;
      size += next.length + 1;
    } else if (prev && size + prev.length + 1 <= MAX_QUOTE_CHARS) {
      from -= 1;
      size += prev.length + 1;
    } else break;
  }
  const body = sentences.slice(from, to + 1).join(' ');
  return `${from > 0 ? '… ' : ''}${body}${to < sentences.length - 1 ? ' …' : ''}`;
}

const PLACE_WORDS =
  /\b(?:city|town|village|inn|tavern|keep|castle|tower|temple|shrine|forest|woods|mountain|mountains|peak|river|lake|sea|isle|island|cave|caves|mine|mines|road|gate|district|market|hall|palace|citadel|ruins|quarry|underdark|swamp|desert|bay|port|harbor|harbour|vale|valley|house|manor|academy|library|tunnels?|depths|pits?)\b/i;
const PLACE_CONTEXT =
  /\b(?:in|at|to|from|into|toward|towards|through|near|across|reach|reached|reaches|enter|entered|enters|leave|left|leaves)\s+(?:the\s+)?$/i;
const ITEM_WORDS =
  /\b(?:curse|mockery|bolt|blast|missile|smite|fireball|stoneskin|invisibility|haste|strike|ward|word|sight|step|fall|wounds|spray|sphere|bag|sword|blade|ring|amulet|staff|cloak|boots|potion|scroll|gem|orb|wand|dagger|axe|bow|shield|armou?r|necklace|tome|flask|pendant|gauntlets?|helm|circlet|bracers)\b/i;
// What is said of a person and not of a place: "talks to Ophelia", "Ophelia nods"; of a god
// too ("a cleric to Sarenrae", "praying up to Sarenrae").
const PERSON_BEFORE =
  /\b(?:talks? to|speaks? (?:to|with)|(?:introduce|introduces) \w+ to|turns? to|waves? to|nods? to|bows? to|calls? (?:to|out to)|brings? us (?:back )?to|(?:name|names|named|call|calls|called) (?:him|her|it)|feed(?:s|ing)?|(?:cleric|priest|priestess|paladin|follower|champion|servant|temple|shrine|church|faith|blessing|prayer) (?:of|to|from)|pray(?:s|ed|ing)? (?:up )?to|devoted (?:\w+ )?(?:life|self) to|worship(?:s|ped|ping)?|follow(?:s|ed)?|(?:hands?|gives?|passes?|shows?|brings?|offers?|sells?) (?:it|them|this|that|one) to|asks?|tells?|thanks?|hugs?|meets?|met|greets?|introduces?|Mr\.|Mrs\.|Ms\.|Lady|Lord|Sir|Captain)\s+(?:the\s+)?$/i;
const PERSON_AFTER =
  /^(?:,\s+(?:you|your|you're|you’re|what|how|where|why|are|do|can|is)\b|['’]s\s+(?:face|eyes|hands?|voice|head|attention|arms?|shoulders?|daughter|son|father|mother|wife|husband|brother|sister)|\s+(?:says|said|asks|asked|nods|nodded|smiles|smiled|turns|replies|responds|shakes|laughs|grins|steps|stands|sits|walks|glances|leans|shrugs|sighs|whispers|tells|looks (?:at|over|up|down)|hands|gives|presents|frowns|winks|chuckles|knows|thinks|wants|doesn't|didn't|throws|waves|points|stares|watches|reaches|pulls|grabs|yells|shouts|screams|gasps))\b/i;
// A spell or an ability, not a person or a place: "I cast Featherfall", "I can Commune With
// Nature", "my Thorn Whip", "the Hunter's Mark spell".
const SPELL_BEFORE = /\b(?:cast|casts|casting|to do|I do|can do|I can|you can|use|uses|using|my|your)\s+$/i;
const SPELL_AFTER = /^\s+(?:spell|cantrip|ritual|damage)\b/i;
// Before a language: "speaking Black Speech", "speaks Dwarvish", "shouts back in Giant".
const LANGUAGE_BEFORE =
  /(?:\b(?:speak|speaks|speaking|spoke|fluent in|written in|translates?(?: it)? (?:from|into)|(?:say|says|said|shout|shouts|yell|yells|call|calls|reply|replies|answer|answers)(?: \w+)? in)\s+)$/i;
// A spell said as a verb: "I Hunter's Mark him", "going to Hunter's Mark one of them".
const SPELL_VERB_BEFORE =
  /\b(?:I|you|he|she|we|they|to|gonna|I'll|I’ll|didn't|didn’t|I've|I’ve|will|can)\s+$/;
const SPELL_VERB_AFTER = /^(?:ed)?\s+(?:him|her|them|it|one)\b/;
// Lines that leave something open: questions and obligations, promises, the missing.
export const THREAD_CUES =
  /\?|\b(?:must|(?<!(?:n['’]t|not|no) |\bif \w+ )needs? to|promised?|promises|swore|vow(?:ed|s)?|owe[sd]?|(?:gone|went|go|goes|still|been) missing|missing (?:person|people|child|children|friend|brother|sister|daughter|son|father|mother)|search(?:ing)? for|looking for|rescue|hunt(?:ing)? (?:for|down)|track(?:ing)? down|plan(?:s|ning)? to|will return|yet to|unknown|mysterious|secret|rumou?rs?|warn(?:ed|ing)?|disappeared|kidnapped|stolen|cursed?)\b/i;

/**
 * A question about the rules or the table, not the story: a player asking what they may do
 * ("Can I use a ritual spell?", "Do I have enough speed to reach her?"), about the game's
 * mechanics, or about the show ("is it Thursday yet?").
 */
const RULES_QUESTION =
  /^(?:(?:first|so|okay|ok|and|but|wait|also|then|now|well),?\s+)*(?:can|could|do|did|may|might|should|would|will|am|shall) (?:I|we)\b|\b(?:speed|feet|range|ritual|action|reaction|concentration|spell slot|level|turn|check|saving throw|save|advantage|inspiration|movement|damage|roll|modifier|bonus|hit points?|hp|ac|darkvision|initiative|weekend|next week|thursday|episode|stream)\b/i;

/**
 * Named terms split into likely places and likely characters. In a long transcript a name
 * must occur `minCount` times (default 2) to count; in short summaries once is enough.
 */
export function namedCast(sentences: Sentence[], minCount = 2): { characters: string[]; places: string[] } {
  // Speaker tags are the people at the table, not the story's characters.
  const speakers = new Set(sentences.flatMap((s) => (s.speaker ? [s.speaker.toLowerCase()] : [])));
  const names = namedTerms(
    sentences.map((s) => s.text),
    speakers,
  ).filter((n) => n.count >= minCount);
  const placeHits = new Map<string, number>();
  const personHits = new Map<string, number>();
  const spellHits = new Map<string, number>();
  for (const s of sentences) {
    for (const { term } of names.slice(0, 60)) {
      const at = s.text.indexOf(term);
      if (at < 0) continue;
      const before = s.text.slice(Math.max(0, at - 16), at);
      const after = s.text.slice(at + term.length, at + term.length + 16);
      // "towards Reginald's daughter" is towards a person.
      if (PLACE_CONTEXT.test(before) && !PERSON_BEFORE.test(before) && !PERSON_AFTER.test(after)) {
        placeHits.set(term, (placeHits.get(term) ?? 0) + 1);
      }
      // A language spoken ("speaking Black Speech", "calls back in Giant") is no one and nowhere.
      if (LANGUAGE_BEFORE.test(before)) spellHits.set(term, (spellHits.get(term) ?? 0) + 1);
      if (
        SPELL_BEFORE.test(before) ||
        SPELL_AFTER.test(after) ||
        (SPELL_VERB_BEFORE.test(before) && SPELL_VERB_AFTER.test(after))
      ) {
        spellHits.set(term, (spellHits.get(term) ?? 0) + 1);
      }
      // Someone who speaks, nods or is spoken to is a person, whatever "to" came before.
      if (PERSON_BEFORE.test(before) || PERSON_AFTER.test(after) || (at === 0 && after.startsWith(','))) {
        personHits.set(term, (personHits.get(term) ?? 0) + 1);
      }
    }
  }
  const places: string[] = [];
  const characters: string[] = [];
  for (const { term, count } of names) {
    // The Bag of Holding, the Summer's Dance blade, Vicious Mockery: things and spells, neither
    // people nor places.
    if (ITEM_WORDS.test(term)) continue;
    const spell = spellHits.get(term) ?? 0;
    if (spell > 0 && spell >= (personHits.get(term) ?? 0)) continue;
    const hits = placeHits.get(term) ?? 0;
    const isPlace =
      PLACE_WORDS.test(term) ||
      (hits >= Math.max(Math.min(2, minCount), count / 5) && hits > (personHits.get(term) ?? 0));
    if (isPlace) places.push(term);
    else characters.push(term);
  }
  // "Mollymauk" is "Molly", "Beauregard" is "Beau": a place that a character's name begins is them.
  const people = places.filter((p) => !PLACE_WORDS.test(p) && characters.some((c) => sameName(c, p)));
  // One person under the name written most: "Beau" and "Beauregard" are listed once.
  const cast = [...characters, ...people].filter((c, i, all) => !all.slice(0, i).some((o) => sameName(o, c)));
  return { characters: cast, places: places.filter((p) => !people.includes(p)) };
}

/**
 * The latest sentences that leave something open, newest first, one per line. Sentences
 * naming one of `names` are preferred: at a table most open questions are about rules.
 */
export function openThreads(sentences: Sentence[], limit: number, names: string[] = []): Sentence[] {
  const question = (s: Sentence) => /\?["”’']?$/.test(s.text.trim());
  const candidates = sentences.filter(
    (s) =>
      THREAD_CUES.test(s.text) &&
      tokenize(s.text).length >= 4 &&
      tableTalk(s.text) <= 0.3 &&
      // A question is a thread when it is asked in the story: of or about someone or somewhere
      // it names, not about the rules, the dice or the show.
      !(
        question(s) &&
        (RULES_QUESTION.test(s.text) ||
          /\d/.test(s.text) ||
          (names.length > 0 && !names.some((n) => mentions(s.text, n))))
      ),
  );
  // What is owed, promised, sought or missing is open; most questions at a table are not, and
  // one of distance, number or size ("How far away is he from the lava?") never is.
  const named = candidates.filter(
    (s) =>
      names.some((n) => mentions(s.text, n)) &&
      !(
        question(s) &&
        /\bhow (?:far|many|much|long|big|old|high|deep)\b|\b(?:bigger|smaller|taller|longer)\b/i.test(s.text)
      ),
  );
  // A line naming no one must say more to be a thread: not "I need to make another", nor a
  // rule ("If Grog wanted to do a frenzy action, but he doesn't need to"; the dice and the
  // like are table talk already).
  const unnamed = candidates.filter(
    (s) =>
      !question(s) &&
      s.text.split(/\s+/).length >= 8 &&
      tableTalk(s.text) <= 0.2 &&
      !/\b(?:action|reaction|check|turn|frenzy|concentration|hit point)\b/i.test(s.text),
  );
  const out: Sentence[] = [];
  const seen = new Set<number>();
  const statements = named.filter((s) => !question(s));
  for (const pool of [statements, unnamed, named]) {
    for (let i = pool.length - 1; i >= 0 && out.length < limit; i--) {
      const s = pool[i]!;
      if (seen.has(s.line)) continue;
      seen.add(s.line);
      out.push(s);
    }
  }
  return out.sort((a, b) => b.line - a.line);
}

export function adventureText(name: string, transcript: string): string {
  const sentences = transcriptSentences(transcript);
  const { characters, places } = namedCast(sentences);
  const threads = openThreads(sentences, 3, [...characters.slice(0, 12), ...places.slice(0, 8)]);
  const lines = [OFFLINE_ADVENTURE_NOTE, ''];
  if (sentences.length === 0) {
    lines.push(`${name} has no transcript text to build an adventure from.`);
    return lines.join('\n');
  }
  lines.push(`Quick adventure material from ${name}:`, '');
  lines.push(
    `**Characters:** ${characters.length > 0 ? characters.slice(0, 8).join(', ') : 'no recurring names found'}`,
  );
  lines.push(
    `**Places:** ${places.length > 0 ? places.slice(0, 6).join(', ') : 'no recurring places found'}`,
  );
  lines.push('', '**Hooks:**');
  const who = (k: number) => characters[k % Math.max(1, characters.length)] ?? 'a stranger who was there';
  const where = (k: number) => places[k % Math.max(1, places.length)] ?? 'the last place the party rested';
  const templates = [
    (k: number) => `${who(k)} turns up with news about it, and wants the party's help before nightfall.`,
    (k: number) => `Someone at ${where(k)} knows more than they let on, and is willing to trade for it.`,
    (k: number) =>
      `It comes back to bite the party: ${who(k + 1)} is in trouble because of it, near ${where(k + 1)}.`,
  ];
  if (threads.length === 0) {
    lines.push(
      `1. ${who(0)} needs the party urgently at ${where(0)}.`,
      `2. A rival of ${who(1)} makes a move while the party is distracted.`,
      `3. Something hidden at ${where(1)} surfaces, and everyone wants it.`,
    );
  } else {
    for (const [k, t] of threads.entries()) {
      lines.push(
        `${k + 1}. Unresolved: "${clip(t.text, 180)}" (${citation(t, '').replace(/:\s*$/, '').trim() || 'transcript'}). ${templates[k]!(k)}`,
      );
    }
  }
  const cast = joinList([...characters.slice(0, 2), ...places.slice(0, 1)]);
  if (cast) lines.push('', `Start in the middle of the action, with ${cast} on stage in the first scene.`);
  return lines.join('\n');
}

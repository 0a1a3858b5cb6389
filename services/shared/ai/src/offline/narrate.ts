/**
 * Transcript sentences as narrative: what a game master wants to read is "Vex attacks the
 * goblin", not "LAURA: Okay, so, I attack the goblin". Discourse markers and fillers are cut
 * from a sentence (compression), and a player's first-person line is told in the third person
 * with their character's name ("I attack" → "Vex attacks", "my" → "their"), conjugating the
 * verb that follows. The game master's second-person narration ("You see a door") is told of
 * the party, or of the character the sentence addresses by name ("Caleb, you find ...").
 */

// Words and phrases that carry no story at the start of a sentence.
const LEADING_FILLER =
  /^(?:(?:okay|ok|so|well|yeah|yes|yep|oh|ooh|ah|um|uh|hmm|alright|all right|and|but|now|right|anyway|anyways|actually|basically|i mean|you know|like|look|listen|wait|hey|guys|man|dude|sure|cool|great|nice|fine|good|oh man|oh god|oh my god|oh my gosh|my god|my gosh|oh gosh|oh boy|wow|whoa|huh|easy enough)\b[,.!…-]*\s+)+/i;
// The game master framing a ruling before telling it: "I'd say for the points of expediency,",
// "I will say for the purposes of this,", "For the sake of brevity,".
const FRAMING =
  /^(?:I(?:['’]d| would| will|['’]ll)? say,?\s+)?(?:for (?:the (?:sake|purposes?|points?) of (?:\w+ ){0,2}\w+|now|simplicity's sake|simplicity['’]s sake)),\s+/i;
// Fillers inside a sentence, set off by commas.
const INNER_FILLER = /,\s*(?:like|you know|i mean|um|uh|basically|actually|sort of|kind of|right)\s*,/gi;
// Stage notes of the table ("(laughter)", "[crosstalk]"); a sound effect inside a sentence stays.
const STAGE =
  /\s*[([]\s*(?:(?:\w+ )?(?:laugh|cheer|groan|sigh|gasp|applause|crosstalk|inaudible|clap)\w*(?: and \w+)?)\s*[)\]]\s*/gi;
// Hedges and intensifiers that a written account leaves out.
const HEDGES =
  /\s+(?:just|really|actually|basically|literally|kind of|kinda|sort of|a little bit|pretty much|totally|definitely|like, )(?=\s)/gi;
// A subordinate clause before the main one ("As he is frozen in place, Clarota steps up").
// (Not "if" or "unless": without its condition a sentence says something else.)
const LEADING_CLAUSE =
  /^(?:as|when|while|after|before|once|since|because|now that|at this point|at which point|in the meantime|meanwhile|for a moment|with that)\b[^,]{0,60},\s+/i;
// What a main clause starts with: its subject (a pronoun, a name, a noun phrase).
const SUBJECT_START =
  /^(?:I|you|he|she|it|we|they|there|this|that|these|those|the|a|an|his|her|its|their|our|my|your|one|two|three|some|every|each|all|both|[\p{Lu}][\p{L}'’-]+(?<!ing))\b/u;
// One after it, set off by a comma ("..., as his tendrils slowly wrap around his head.").
const TRAILING_CLAUSE =
  /,\s+(?:as|while|which|where|though|although|because|since|so that|in case)\b[^,]*[.!…]?$/i;
// A trailing aside after a dash, or a sentence cut off mid-way ("and he just--").
const TRAILING = /\s*(?:--|—|–)\s*[^-—–]*$/;

/** A sentence without its discourse markers, fillers and stage notes (laughter, crosstalk). */
export function compress(text: string): string {
  const unstaged = text.replace(STAGE, ' ');
  let t = unstaged.replace(/\s+/g, ' ').trim();
  // A stage note taken out of "the dwarves go, (laughter)." leaves no ", ." behind.
  t = t.replace(/\s*[,;:]\s*(?=[.!?…]|$)/g, '').replace(/\s+(?=[.!?…](?:\s|$))/g, '');
  // One that stood for the words ("Your jury summons is (groans).") leaves the thought hanging.
  if (unstaged !== text)
    t = t.replace(/\b(a|an|the|to|of|is|are|was|were|be|my|your|his|her|their)\.$/i, '$1…');
  // A word said twice as the speaker finds their feet: "so you, you blast the ogre".
  t = t.replace(/\b(I|you|we|he|she|they|it|the|a|an|and|so|but|then)(?:,? \1\b)+/gi, '$1');
  t = t.replace(INNER_FILLER, ',');
  t = t.replace(HEDGES, '');
  // What a character perceives is told as it happens: "you can see a door" → "you see a door".
  t = t.replace(/\b(you|I|we|they|he|she) can (see|hear|feel|smell|notice|make out|tell)\b/gi, '$1 $2');
  {
    const lead = t.replace(LEADING_CLAUSE, '');
    if (lead !== t && lead.split(' ').length >= 5 && SUBJECT_START.test(lead))
      t = lead.charAt(0).toUpperCase() + lead.slice(1);
    const trail = t.replace(TRAILING_CLAUSE, '.');
    if (trail.split(' ').length >= 6) t = trail;
  }
  let cut = t.replace(TRAILING, '');
  if (cut !== t && cut.split(' ').length >= 5) {
    // A sentence broken off mid-clause ("..., and he just--") ends at the clause before.
    const whole = cut.replace(/,\s*[^,]+$/, '');
    if (
      !/[.!?…]$/.test(cut) &&
      whole !== cut &&
      cut.length - whole.length < 30 &&
      whole.split(' ').length >= 5
    )
      cut = whole;
    // A thought left hanging on a word that needs more ("was essentially--") is marked as such.
    const hanging =
      /\b(?:a|an|the|to|of|and|or|but|was|is|are|were|be|with|for|from|at|in|on|into|as|like|\w+ly)$/i.test(
        cut,
      );
    t = /[.!?…]$/.test(cut) ? cut : `${cut}${hanging ? '…' : '.'}`;
  }
  // A start broken off before the sentence proper: 'I--" And she takes a sip'.
  t = t.replace(/^(?:I|we|you|he|she|they|it|so|and|but|the|a|um|uh)\s*(?:--|—|–)["”]?\s+(?=\S)/i, '');
  t = t.replace(LEADING_FILLER, '');
  {
    const framed = t.replace(FRAMING, '');
    if (framed !== t && framed.split(' ').length >= 5) t = framed;
  }
  t = t.replace(/^[,;:…\s-]+/, '');
  if (!t) return text.trim();
  return t.charAt(0).toUpperCase() + t.slice(1);
}

// Verbs that do not take -s in the third person, or change altogether.
const MODALS = new Set(
  'can could will would shall should may might must cannot ought had did was were'.split(' '),
);
const IRREGULAR: Record<string, string> = {
  am: 'is',
  are: 'is',
  have: 'has',
  do: 'does',
  go: 'goes',
  "don't": "doesn't",
  'don’t': 'doesn’t',
  "haven't": "hasn't",
  "aren't": "isn't",
};
// Common past tenses without -ed: they stay as they are. Verbs whose past is their base form
// (cast, hit, cut, put, set, let, read) are not here: at the table "I cast" is what a player
// does now, so "Vex casts".
const PAST = new Set(
  `was were went saw took got had did said made found came knew thought told gave felt left kept
  brought bought sent ran threw drew drank ate fell fought caught held heard
  lost met paid rode rose sat slept spoke stood stole struck swam swung taught tore understood
  woke won wore wrote began became broke chose forgot forgave grew hid hung led lit meant shot shook
  sang sank slid spent spun stuck stung swore`.split(/\s+/),
);
// Words that may sit between the subject and its verb ("I just attack").
const ADVERBS = new Set(
  'just also really then actually still now first again instead ever quickly slowly immediately already never always only even totally definitely probably quietly carefully'.split(
    ' ',
  ),
);
// Verbs a player says they do, in their base form: after "and" with no subject of their own
// they are the same character's ("I grab it and run" → "Grog grabs it and runs").
const ACTIONS = new Set(
  `do go take make run attack hit cast move grab try use jump pull push look walk throw swing fire
  shoot stab get put drop turn step climb hide keep hold draw give follow lift kick punch reach
  slam heal drink eat open close check search say tell ask sit stand wait watch leave head rush
  charge dash duck dodge slash strike bring carry pick toss fly land spin smash break cut catch
  shove knock sneak whisper shout yell call point nod smile laugh hug touch listen bite start
  begin aim load stop hand slide kneel lean wave manage free find notice see hear feel spot
  finish continue return decide blink glance realize`.split(/\s+/),
);
// Words after "I" that are not verbs to conjugate (the sentence keeps "I" there).
const NOT_VERBS = new Set(
  'a an the and or but to of in on at with for from as if so that this it my your his her their our'.split(
    ' ',
  ),
);

/** "just", "slowly", "fucking": words between a subject and its verb. */
function isAdverb(word: string): boolean {
  const w = word.toLowerCase();
  return (
    ADVERBS.has(w) ||
    (/^[a-z]{3,}(?:ly|ing)$/.test(w) &&
      !/^(?:fly|apply|reply|rely|ally|bring|sing|ring|sting|swing|string)$/.test(w))
  );
}

/** A present-tense verb in the third person singular ("attack" → "attacks"). */
export function thirdSingular(verb: string): string {
  const lower = verb.toLowerCase();
  if (Object.hasOwn(IRREGULAR, lower)) return IRREGULAR[lower]!;
  if (
    MODALS.has(lower) ||
    PAST.has(lower) ||
    (/ed$/.test(lower) && !/eed$/.test(lower) && !/^(?:shed|embed)$/.test(lower)) ||
    /^(?:agreed|freed)$/.test(lower) ||
    /n['’]t$/.test(lower)
  )
    return verb;
  if (/(?:s|sh|ch|x|z|o)$/.test(lower)) return `${verb}es`;
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

/** A base form in the third person singular: as thirdSingular, without the past tenses ("cast" → "casts"). */
function presentSingular(verb: string): string {
  if (Object.hasOwn(IRREGULAR, verb)) return IRREGULAR[verb]!;
  if (/(?:s|sh|ch|x|z|o)$/.test(verb)) return `${verb}es`;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

const CONTRACTED: Record<string, string> = { m: 'is', ve: 'has', ll: 'will', d: 'would', re: 'is' };
// After an object "you" ("it hits you in the face") come these; after a subject, a verb.
const OBJECT_NEXT =
  /^(?:a|an|the|to|in|on|at|with|for|from|into|onto|of|and|or|but|this|that|some|any|his|her|its|up|down|out|off|back|over|away|as|like|by|about|through|again|now|here|there|without|within|across|behind|beside|inside|outside|around|under|toward|towards|near|past|against|per|each)?$/i;
// Before an object: "those of you", "it's up to you".
const PREPOSITION =
  /^(?:of|to|at|with|for|from|by|about|like|than|toward|towards|around|behind|near|before|after|against|upon|onto|into|past|beside|between|among|amongst|beneath|underneath|above|below|beyond|within|without|across|along|through|throughout|except)$/i;
// Words in -ing that are not participles ("or something you can use").
const NOT_PARTICIPLE =
  /^(?:(?:some|any|no|every)?thing|king|ring|wing|string|spring|morning|evening|ceiling|building|sibling|darling|clothing|meeting|wedding|during)$/i;
const CONJUNCTION = /^(?:and|but|then|so|if|when|as|that|because|until|while|or|once|before|after)$/i;

// "Thank you" is said to whoever listens, not told of anyone.
const THANK = /^["“(]?thank$/i;

/** A word without the punctuation after it ("away." → "away"). */
function bare(word: string | undefined): string {
  return (word ?? '').replace(/[,.;:!?"”’)…]+$/, '');
}

/**
 * Whether "you" between these words is an object: after a preposition ("up to you") or a
 * participle ("Seeing you there", "bring you back"), or before what follows an object ("hits
 * you in the face", "takes you away.").
 */
function objectYou(previous: string, next: string | undefined): boolean {
  return (
    PREPOSITION.test(previous) ||
    (/^[a-z]{2,}ing$/i.test(previous) && !NOT_PARTICIPLE.test(previous)) ||
    OBJECT_NEXT.test(bare(next))
  );
}

/**
 * Whether "you" after this word is a subject: at the start of a clause, after a conjunction,
 * or where it is no object. "Before you go" has a subject, "before you Vex stands" an object.
 */
function subjectYou(previous: string, next: string | undefined): boolean {
  if (/[,;:.!?"“—–-]$/.test(previous)) return true;
  const named = /^[\p{Lu}]/u.test(next ?? '') && !/^I\b/.test(next ?? '');
  if (CONJUNCTION.test(previous))
    return !(PREPOSITION.test(previous) && (named || OBJECT_NEXT.test(bare(next))));
  return !objectYou(previous, next);
}

// What a compound subject goes on with: "the story you and Percy have been working on", "the
// thing you and Grog found" (a verb in the past as well).
const COMPOUND_VERB =
  /^(?:have|had|are|were|will|would|can|could|should|must|might|may|do|did|both|each|all|need|want|go|get|see|hear|find|make|take|look|start|begin|manage|try|decide)$/i;

/** Whether "you" at `i` opens a compound subject with a name: "you and Percy have". */
function compoundSubject(words: readonly string[], i: number): boolean {
  return (
    /^and$/i.test(words[i + 1] ?? '') &&
    /^[\p{Lu}][\p{L}'’-]*$/u.test(words[i + 2] ?? '') &&
    (COMPOUND_VERB.test(words[i + 3] ?? '') ||
      PAST.has(words[i + 3] ?? '') ||
      /^[a-z]{3,}ed$/.test(words[i + 3] ?? ''))
  );
}

/**
 * "You guys" or "you all" called out to the table ("You guys, look!", "It's here, you guys!")
 * says nothing of anyone: it is left out.
 */
export function withoutCallOut(text: string): string {
  const out = text
    .replace(/^(["“(]?)you (?:guys|all|folks),\s+(\p{L})/iu, (_, q: string, c: string) => q + c.toUpperCase())
    .replace(/,\s+you (?:guys|all|folks)(?=[.!?…]|$)/giu, '');
  return out || text;
}

/** "You guys", "you folks" and "you all" are "you" ("not too keen on you guys." → "on you."). */
function withoutGuys(text: string): string {
  return text
    .replace(/\ball ([Yy]ou) (?:guys|folks)\b/g, '$1')
    .replace(/\b([Yy]ou) (?:guys|folks|all\b(?! right))\b/g, '$1');
}

/**
 * A first- or second-person sentence about `subject` told in the third person. `pronoun` is
 * "I" (a player speaking as their character) or "you" (the game master narrating to them).
 */
export function toThirdPerson(
  text: string,
  subject: string,
  pronoun: 'I' | 'you',
  pronouns: Pronouns = 'they',
): string {
  const words = (pronoun === 'you' ? withoutGuys(text) : text).split(' ');
  const pattern =
    pronoun === 'I' ? /^(["“(]?)I(?:['’](m|ve|ll|d))?$/ : /^(["“(]?)[Yy]ou(?:['’](re|ve|ll|d))?$/;
  let named = false;
  for (let i = 0; i < words.length; i++) {
    const m = pattern.exec(words[i]!);
    if (!m) continue;
    const previous = i === 0 ? '' : words[i - 1]!;
    if (pronoun === 'you' && THANK.test(previous)) continue;
    // "I" is only ever a subject ("I think I know"); "you" may be an object.
    const subjectPosition =
      pronoun === 'I' ||
      i === 0 ||
      /[,;:.!?"“—–-]$/.test(previous) ||
      (pronoun === 'you' &&
        (CONJUNCTION.test(previous) || !/[,;:.!?]$/.test(words[i]!)) &&
        (subjectYou(previous, words[i + 1]) || compoundSubject(words, i)));
    if (!subjectPosition) continue;
    const start = i === 0 || /[.!?]$/.test(previous);
    const first = !named;
    // "Do I get to roll?" asks of one character: "Does Percy get to roll?"
    const asked = /^([Dd]o|[Aa]m|[Hh]ave)$/.exec(previous);
    if (asked && (first || pronouns !== 'they')) {
      const singular = { do: 'does', am: 'is', have: 'has' }[asked[1]!.toLowerCase() as 'do' | 'am' | 'have'];
      words[i - 1] =
        asked[1]![0] === asked[1]![0]!.toUpperCase()
          ? singular.charAt(0).toUpperCase() + singular.slice(1)
          : singular;
    }
    let name: string;
    if (named) {
      // Named once, the subject is a pronoun after that ("Vex draws and she fires", "they fire").
      name = start ? pronouns.charAt(0).toUpperCase() + pronouns.slice(1) : pronouns;
      if (pronouns === 'they') {
        if (m[2]) words[i] = `${m[1]}${name}'${m[2] === 'm' ? 're' : m[2]}`;
        else {
          words[i] = `${m[1]}${name}`;
          const next = words[i + 1] ?? '';
          if (/^(?:am|was)\b/.test(next)) words[i + 1] = next.replace(/^am/, 'are').replace(/^was/, 'were');
        }
        continue;
      }
      if (m[2]) {
        words[i] = `${m[1]}${name}'${m[2] === 'm' || m[2] === 've' || m[2] === 're' ? 's' : m[2]}`;
        continue;
      }
    } else {
      named = true;
      name = start ? subject.charAt(0).toUpperCase() + subject.slice(1) : subject;
      if (m[2]) {
        words[i] = `${m[1]}${name} ${CONTRACTED[m[2]]}`;
        continue;
      }
    }
    // "you all", "you guys" are the party too.
    if (first && pronoun === 'you' && /^(?:all|two|three|both)$/i.test(words[i + 1] ?? ''))
      words.splice(i + 1, 1);
    words[i] = `${m[1]}${name}`;
    let j = i + 1;
    while (j < words.length - 1 && isAdverb(words[j]!)) j += 1;
    const v = /^([a-z]+(?:n['’]t)?)([,.;:!?]*)$/.exec(words[j] ?? '');
    if (!v || NOT_VERBS.has(v[1]!)) continue;
    // After "can", "should", "did" the verb stays as it is ("Can Vex talk to him?").
    if (/^(?:can|could|will|would|shall|should|may|might|must|do|does|did|let|am|have)$/i.test(previous))
      continue;
    const verb =
      pronoun === 'you' && v[1] === 'were'
        ? 'was'
        : pronoun === 'you' && /^weren['’]t$/.test(v[1]!)
          ? "wasn't"
          : thirdSingular(v[1]!);
    words[j] = verb + v[2]!;
    // The same subject's next verbs: "Vex draws her bow and fires", "and then runs".
    for (let k = j + 1; k < words.length - 1 && !/[.!?;:]$/.test(words[k - 1]!); k++) {
      // ("tries and swings" is not two things done: "try and swing" is "try to swing".)
      if (!/^and$/i.test(words[k]!) || /^(?:try|tries)$/i.test(words[k - 1]!)) continue;
      let w = k + 1;
      while (w < words.length - 1 && (/^then$/i.test(words[w]!) || isAdverb(words[w]!))) w += 1;
      const c = /^([a-z]+)([,.;:!?]*)$/.exec(words[w] ?? '');
      if (c && ACTIONS.has(c[1]!)) words[w] = thirdSingular(c[1]!) + c[2]!;
    }
  }
  return possessives(words.join(' '), subject, pronoun, pronouns);
}

/** How a character is referred to: "he", "she" or "they" (the default when it isn't known). */
export type Pronouns = 'he' | 'she' | 'they';

// Object, possessive, independent possessive and reflexive forms of each.
const FORMS: Record<Pronouns, { object: string; possessive: string; own: string; self: string }> = {
  he: { object: 'him', possessive: 'his', own: 'his', self: 'himself' },
  she: { object: 'her', possessive: 'her', own: 'hers', self: 'herself' },
  they: { object: 'them', possessive: 'their', own: 'theirs', self: 'themself' },
};

function possessives(text: string, subject: string, pronoun: 'I' | 'you', pronouns: Pronouns): string {
  const possessive = /s$/.test(subject) ? `${subject}'` : `${subject}'s`;
  const capital = possessive.charAt(0).toUpperCase() + possessive.slice(1);
  const f = FORMS[pronouns];
  if (pronoun === 'I') {
    return (
      text
        .replace(/\bmyself\b/g, f.self)
        // "Oh my gosh" is an exclamation, not something of theirs.
        .replace(/\bmy\b(?! (?:god|gosh|goodness|lord)\b)/g, f.possessive)
        .replace(/\bMy\b(?! (?:god|gosh|goodness|lord)\b)/g, capital)
        .replace(/\bmine\b/g, f.own)
        .replace(/(?<=\s)me\b/g, f.object)
    );
  }
  return text
    .replace(/\byourselves\b/g, 'themselves')
    .replace(/\byourself\b/g, f.self)
    .replace(/\byour\b/g, f.possessive)
    .replace(/\bYour\b/g, capital)
    .replace(/\byours\b/g, f.own)
    .replace(/(?<=\s)(?<![Tt]hank\s)you\b/g, f.object);
}

/** Who a sentence is about when told as narrative: its speaker's character, or the party. */
export interface NarrationContext {
  /** The player's character for the sentence's speaker, if any. */
  character: string | null;
  /** Whether the speaker is the game master (who narrates in the second person). */
  narrator: boolean;
  /** The characters of the campaign, to find the one a narrator's sentence addresses. */
  characters: string[];
  /** The character whose player spoke just before the game master's line: who "you" is. */
  addressee?: string | null;
  /** How the story refers to a character ("they" when not known). */
  pronounsOf?: (character: string) => Pronouns;
}

/**
 * A transcript sentence as narrative: compressed, a player's first person told of their
 * character, the game master's "you" told of the character addressed or of the party. A
 * player's line that stays in their own voice keeps their character's name in front of it.
 */
export function narrate(text: string, ctx: NarrationContext): string {
  let t = withoutCallOut(compress(text));
  if (ctx.character) {
    // A player's "we" is the party; "Let's ..." is what their character proposes.
    const told = toThirdPerson(
      weToParty(t, ctx.character),
      ctx.character,
      'I',
      ctx.pronounsOf?.(ctx.character),
    );
    // Said to someone in character keeps its speaker: "Have you seen my son?", "I saved your
    // life. You should be grateful" (not "you guys" to the table, nor "thank you").
    const says = /\b(?:you|your|you['’](?:re|ve|ll|d))\b/i.test(
      t.replace(/\b(?:thank you|you know|you guys|if you will|mind you|see you)\b/gi, ''),
    );
    if (told !== t && !says) return plainPresent(told);
    // "Caleb is too poor": a player telling of their own character needs no name in front.
    const first = ctx.character.split(/['’\s-]/)[0]!;
    if (t.toLowerCase().startsWith(first.toLowerCase()) && !/\p{L}/u.test(t.charAt(first.length)))
      return plainPresent(t);
    return `${ctx.character}: ${t}`;
  }
  if (ctx.narrator && !t.endsWith('?')) {
    // "Caleb, you find ..." is about Caleb; otherwise "you" is the party.
    // ("Top of the round, Percy, you're up" is about Percy as well.)
    const addressed =
      /^([\p{Lu}][\p{L}'’-]+),\s+(?=your?\b)/u.exec(t) ??
      /(?<=,\s+)([\p{Lu}][\p{L}'’-]+),?\s+(?=you(?:['’]re)?\b)/u.exec(t) ??
      /,\s+([\p{Lu}][\p{L}'’-]+)(?=[.!]$)/u.exec(t);
    const who = addressed
      ? ctx.characters.find((c) => {
          const [a, b] = [c.toLowerCase(), addressed[1]!.toLowerCase()];
          return a.startsWith(b) || b.startsWith(a);
        })
      : undefined;
    if (addressed && who) {
      t =
        addressed.index === 0
          ? t.slice(addressed[0].length)
          : t.slice(0, addressed.index) + t.slice(addressed.index + addressed[0].length);
      t = t.charAt(0).toUpperCase() + t.slice(1);
    }
    const all =
      /\byou (?:all|guys|folks|two|three|both)\b|\b(?:all|both|two|three|four|five|each|some|most|none|either|neither|several) of you\b/i.test(
        t,
      );
    const addressee = who ?? (all ? null : ctx.addressee);
    // What a character of the story says inside quotes is theirs: "you" there is not the party.
    // (A quote that ends a sentence leaves a full stop on its stand-in, so what follows starts one.)
    const quotes: string[] = [];
    t = t.replace(
      /["“][^"”]*(?:["”]|$)/g,
      (q) => `\u2063${quotes.push(q) - 1}\u2063${/[.!?…]["”]?$/.test(q) ? '.' : ''}`,
    );
    t = addressee ? toThirdPerson(t, addressee, 'you', ctx.pronounsOf?.(addressee)) : toParty(t);
    t = t.replace(/\u2063(\d+)\u2063(\.?)/g, (_, k: string, stop: string) => {
      const q = quotes[Number(k)]!;
      return /[.!?…]["”]?$/.test(q) ? q : q + stop;
    });
  }
  return plainPresent(t);
}

// "Vex is going to cast", "they're going to run": what a recap tells as done ("Vex casts").
const GOING_TO =
  /\b([\p{Lu}][\p{L}'’-]*|they|he|she|it)(?: (is|are)|['’](s|re)) (?:(just|also|then|quickly|slowly|probably) )?going to ([a-z]+)\b/gu;

/**
 * Intent told as what happens, the way a written account reads: "Vex is going to cast Hunter's
 * Mark" → "Vex casts Hunter's Mark", "they're going to run" → "they run". Only a named or
 * third-person subject: "I'm going to" and "you're going to" are the narration's to tell first.
 */
export function plainPresent(text: string): string {
  return text
    .replace(GOING_TO, (whole, subject: string, be?: string, short?: string, adverb?: string, verb = '') => {
      if (/^(?:I|You|We|This|That|There|What|Who)$/.test(subject)) return whole;
      const plural = /^they$/i.test(subject) || be === 'are' || short === 're';
      if (verb === 'be') return `${subject} ${plural ? 'are' : 'is'}${adverb ? ` ${adverb}` : ''}`;
      const told = plural ? verb : presentSingular(verb);
      return `${subject} ${adverb ? `${adverb} ` : ''}${told}`;
    })
    .replace(/\b(tries|try) and (?=[a-z])/g, '$1 to ');
}

/**
 * The game master's "you" told of the party as "they" (the party acts together, as a written
 * account tells it: "You enter the cave" → "They enter the cave").
 */
export function toParty(text: string): string {
  const words = withoutGuys(text).split(' ');
  for (let i = 0; i < words.length; i++) {
    const m = /^(["“(]?)([Yy])ou(?:['’](re|ve|ll|d))?([,.;:!?"”)]*)$/.exec(words[i]!);
    if (!m || THANK.test(words[i - 1] ?? '')) continue;
    const capital = m[2] === 'Y';
    if (m[3]) {
      words[i] = `${m[1]}${capital ? 'They' : 'they'}'${m[3]}${m[4]}`;
      continue;
    }
    if (/^(?:all|two|three|both)$/i.test(words[i + 1] ?? '')) words.splice(i + 1, 1);
    const previous = i === 0 ? '' : words[i - 1]!;
    const subject =
      (i === 0 && (!m[4] || m[4] === ',')) ||
      (!m[4] && (subjectYou(previous, words[i + 1]) || compoundSubject(words, i)));
    words[i] = `${m[1]}${subject ? (capital ? 'They' : 'they') : 'them'}${m[4]}`;
  }
  return words
    .join(' ')
    .replace(/\byourselves\b|\byourself\b/g, 'themselves')
    .replace(/\byours\b/g, 'theirs')
    .replace(/\byour\b/g, 'their')
    .replace(/\bYour\b/g, 'Their');
}

/** A player's first person plural told of the party: "we" → "they", "Let's go" → "Vex proposes they go". */
export function weToParty(text: string, character: string): string {
  return text
    .replace(/^Let['’]s\s+/, `${character} proposes they `)
    .replace(/\blet['’]s\s+/g, 'they should ')
    .replace(
      /\b([Ww])e(['’](?:re|ve|ll|d))?\b/g,
      (_, w: string, c: string | undefined) => `${w === 'W' ? 'T' : 't'}hey${c ?? ''}`,
    )
    .replace(/\bus\b/g, 'them')
    .replace(/\bourselves\b/g, 'themselves')
    .replace(/\b([Oo])ur\b/g, (_, o: string) => (o === 'O' ? 'Their' : 'their'));
}

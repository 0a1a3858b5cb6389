/**
 * How a name is used in a sentence, as the offline codex reads it: the words around a mention
 * that say it is someone (a title before it, a verb of speech or gesture after it, being spoken
 * to), somewhere (a preposition of place, a place noun), a thing, a group, or a spell, ability
 * or rule of the game (cast before it, a rules noun after it), and table talk that is not the
 * game (the show, its sponsors, its stream). Plain English grammar and the vocabulary of any
 * game, never the names of one game's spells or one show's people.
 */

/** A title or form of address right before a name: it names a person. */
export const TITLE_BEFORE =
  /\b(?:lady|lord|sir|dame|king|queen|prince|princess|captain|master|mistress|mister|mr|mrs|ms|miss|dr|doctor|general|commander|father|mother|brother|sister|uncle|aunt|auntie|grandma|grandpa|madam|duke|duchess|baron|baroness|count|countess|earl|lieutenant|sergeant|archmage|arcanist|huntmaster|elder|chief|chieftain|priest|priestess|emperor|empress|professor|saint|warden|keeper|magister|lieutenant|high priestess|high priest|sheriff|mayor|captain|bishop|abbot|admiral|colonel|corporal|ensign|commodore|marshal|constable|inspector|detective|officer|agent|senator|governor|president|chancellor|minister|ambassador|judge|reverend|pastor|rabbi|imam|deacon|cardinal|pope|nurse|madame|monsieur|mademoiselle|señor|señora|herr|frau|magistrate|widow|widower|alderman|reeve|steward|chancellor|provost|abbess|prior|prioress|matron|foreman|cousin)\.?\s+$/i;

/** Being introduced: "named X", "her name is X", "this is X". */
export const INTRODUCED_BEFORE =
  /\b(?:named|name is|name's|names are|known as|goes by|introduces (?:himself|herself|themselves) as)\s+$/i;

/** A verb of speech, gesture or mind right after a name: someone does it. */
export const PERSON_AFTER =
  /^(?:,\s*)?\s+(?:says|said|asks|asked|tells|told|replies|replied|responds|responded|whispers|whispered|shouts|shouted|yells|yelled|answers|answered|explains|explained|nods|nodded|smiles|smiled|grins|grinned|laughs|laughed|chuckles|chuckled|sighs|sighed|frowns|frowned|looks at|looked at|looks over|looks up|looks down|turns to|turned to|turns around|glances|glanced|shrugs|shrugged|stares|stared|winks|winked|bows|bowed|waves|waved|points|pointed|pauses|paused|mutters|muttered|murmurs|murmured|exclaims|exclaimed|insists|insisted|agrees|agreed|offers|offered|thanks|thanked|hugs|hugged|cries|cried|screams|screamed|gasps|gasped|blinks|blinked|leans|leaned|steps|stepped|walks|walked|sits|sat|stands|stood|reaches|reached|grabs|grabbed|hands you|handed|gives you|gave you|wants|wanted|knows|knew|thinks|thought|remembers|remembered|wonders|believes|promises|promised|warns|warned|begs|begged|greets|greeted|rolls (?:his|her|their)|fails|failed|succeeds|dies|died|admits|admitted|growls|snarls|sneers|scowls|hails|hailed|transfers|promises|goes pale|raises|lifts|who|(?:runs|ran|owns|owned|keeps|kept|manages|managed|tends|tended) (?:it|the place|this place|that place))\b/i;

/** A possessive with a word only a person has. */
export const PERSON_POSSESSIVE =
  /^['’]s\s+(?:father|mother|son|daughter|wife|husband|brother|sister|uncle|aunt|friend|friends|family|parents|children|kids|men|guards|servant|servants|voice|eyes|face|hand|hands|head|arm|arms|body|mind|name|room|bedroom|people|master|boss|heart|smile|expression|lips|beard|hair|throat|shoulder|back|chest|soul)\b/i;

/** A preposition or verb of place right before a name: somewhere. */
export const PLACE_BEFORE =
  /(?:\b(?:in|inside|into|within|at|near|across|beyond|outside|through|throughout|toward|towards|around|reach|reached|reaching|enter|entered|entering|leave|left|leaving|visit|visited|visiting|arrive in|arrive at|arrived in|arrived at|arriving in|arriving at|city of|town of|village of|island of|isle of|land of|lands of|kingdom of|streets of|gates of|outskirts of|edge of|north of|south of|east of|west of|(?:go|goes|going|gone|went|come|comes|came|coming|get|gets|got|head|heads|headed|heading|travel|travels|traveled|travelled|traveling|travelling|return|returns|returned|returning|move|moves|moved|run|runs|ran|sail|sails|sailed|ride|rides|rode|fly|flies|flew|walk|walks|walked|march|marched|way|road|path|journey|trip|back|welcome)(?:\s+(?:over|back|down|up|out|on|straight|all the way))?\s+to)|^to)\s+(?:the\s+)?$/i;

/**
 * "On X": a planet, a station, a hill ("docked on Korrin Prime"), unless something is put on
 * someone: a power or a spell ("Veil Push on Gorrik", "cast it on Kane"), checked case-sensitively.
 */
export const ON_PLACE_BEFORE = /\bon\s+(?:the\s+)?$/i;
export const ON_SOMEONE_BEFORE =
  /(?:\b(?:[Cc]ast|[Cc]asts|[Cc]asting|[Uu]se|[Uu]ses|[Uu]sed|[Uu]sing|it|that|this|one|[Pp]ush|[Pp]ushes|[Pp]ut|[Pp]uts|[Hh]ere|[Ww]ork|[Ww]orks)|\p{Lu}[\p{L}'’-]*)\s+on\s+(?:the\s+)?$/u;

/** Words as an alternation that matches them first in a sentence too, in a case-sensitive pattern. */
function capitalOrNot(words: string): string {
  return words
    .split(' ')
    .map((w) => `[${w[0]!.toUpperCase()}${w[0]}]${w.slice(1)}`)
    .join('|');
}

/** Nouns that make a name a place when they are its head ("Greyspine Manor", "the Pig Pits"). */
const PLACE_NOUNS =
  'tavern inn pub bar manor quarry mountain mountains mount forest wood woods river lake sea ocean keep castle tower temple hall gate gates road pass isle island islands coast bay vale valley hill hills peak peaks mine mines cave caves cavern caverns market markets district square street bridge port harbor harbour city town village hamlet citadel fortress fort palace academy library shrine barrow plane realm kingdom desert swamp marsh canyon cliff cliffs falls spring springs grove garden gardens docks dock quarter ward camp warcamp run cove nest pit pits estate plaza arena prison sanctum spire crossing crossroads lighthouse farm mill reach shore shores glade hollow moor heath fields field plains steppe tundra wastes badlands jungle lagoon reef abbey chapel cathedral church monastery house home lodge hearth hold hold stronghold outpost tunnel tunnels sewers sewer underdark station planet moon system systems world sector colony base nebula spaceport starport hospital asylum sanatorium yard yards avenue lane row alley boulevard wharf pier hotel club cantina saloon diner cafe restaurant bakery shop store bank museum school university college theatre theater park cemetery graveyard ground grounds tomb vault crypt mausoleum building apartments tenement warehouse factory lab laboratory hangar precinct courthouse jail'.split(
    ' ',
  );
/** "The moon Haddar", "the planet X": a place noun right before a name. */
export const PLACE_NOUN_BEFORE = new RegExp(`\\bthe\\s+(?:${placeNounsPattern()})\\s+$`, 'i');
/** "The Rusty Comet, the cantina at the end of dock nine": a place noun in apposition after it. */
export const PLACE_NOUN_AFTER = new RegExp(
  `^,\\s+(?:the|a|an)\\s+(?:[a-z'’-]+\\s+){0,2}(?:${placeNounsPattern()})\\b`,
  'i',
);
/** The place nouns, less those that are often something else too ("the house", "the run"). */
function placeNounsPattern(): string {
  return PLACE_NOUNS.filter(
    (n) => !['house', 'home', 'hold', 'run', 'reach', 'ground', 'grounds', 'base'].includes(n),
  ).join('|');
}

/**
 * Said where a name can only be somewhere, enough for a name said once: a night spent or a visit
 * there ("you wake up in the Gilded Goose", "goes to the Leaky Bucket"), a place noun that is the
 * name ("the smithy is the Anvil and Ember", "a shop called X"), a place noun in it ("the academy
 * in X"), the weather over it ("ash comes down over X"), a family of it ("the Smiths of X"), a
 * river meeting another ("where the X meets the Y").
 */
export const WHERE_BEFORE = new RegExp(
  [
    `\\b(?:wake|wakes|woke|waking|stay|stays|stayed|staying|sleep|sleeps|slept|sleeping|live|lives|lived|living|lodge|lodges|lodged|drink|drinks|drank|drinking|go|goes|went|going|head|heads|headed|arrive|arrives|arrived|back)(?:\\s+(?:up|off|down|back|over|out))?\\s+(?:in|at|to|into|inside)\\s+the\\s+$`,
    `\\b(?:${placeNounsPattern()}|smithy|forge|apothecary|workshop)\\s+(?:is|was|called|named|known as)\\s+(?:the\\s+)?$`,
    `\\b(?:${placeNounsPattern()}|smithy|forge|apothecary|workshop)\\s+(?:in|outside|near)\\s+$`,
    `\\b(?:${capitalOrNot('rain snow ash fog mist smoke night dusk dawn darkness sun cloud clouds storm')})\\b[^.!?]{0,30}\\bover\\s+$`,
    `\\b[Tt]he\\s+\\p{Lu}\\p{Ll}+s\\s+of\\s+$`,
  ].join('|'),
  'u',
);
const PLACE_CALLED = new RegExp(
  `\\b(?:${placeNounsPattern()}|smithy|forge|apothecary|workshop)\\s+(?:is|was|called|named|known as)\\s+(?:the\\s+)?(\\p{Lu}[\\p{L}'’-]+(?:\\s+(?:and|&)\\s+\\p{Lu}[\\p{L}'’-]+)+)`,
  'gu',
);
/** Names of places with "and" in them, named by a place noun: "the smithy is the Anvil and Ember". */
export function placesCalled(text: string): string[] {
  return [...text.matchAll(PLACE_CALLED)].map((m) => m[1]!);
}
/** "Where the Silverrun meets the Vesk": rivers and roads meet, join and flow into each other. */
export const WHERE_AFTER = /^\s+(?:meets|joins|flows into|runs into|empties into)\s+the\b/;

/** Nouns that make a name a thing ("Blinkback Belt", "Bag of Holding", "Spark Stone"). */
const ITEM_NOUNS =
  'sword swords axe bow crossbow staff ring amulet cloak boots belt armor armour shield dagger wand rod potion scroll tome book crown gem stone orb blade hammer warhammer spear lance bag necklace pendant helm helmet gauntlet gauntlets bracers bracer horn key map coin chest box lantern mirror flute lute sigil idol relic artifact circlet mace flail whip trident glaive halberd rapier scimitar pistol gun rifle cannon carpet deck cube dust oil elixir wine ale brandy instrument harp drum totem mask robe robes gloves goggles coat hat cape'.split(
    ' ',
  );
/** Nouns that make a name a group of people ("House Thunderbrand", "the Iron Shepherds"). */
const FACTION_NOUNS =
  'guild order council clan house brotherhood sisterhood church conclave alliance company legion army court circle society cult tribe herd syndicate union watch guard guards knights league assembly cabal coven family families crew band gang clasp shepherds soul empire dynasty republic'.split(
    ' ',
  );
const NOUN_KIND = new Map<string, 'place' | 'item' | 'faction'>([
  ...ITEM_NOUNS.map((n) => [n, 'item'] as const),
  ...FACTION_NOUNS.map((n) => [n, 'faction'] as const),
  ...PLACE_NOUNS.map((n) => [n, 'place'] as const),
]);

const LEADING_NOUN_KIND = new Map<string, 'place' | 'faction'>([
  ...'house clan order guild'.split(' ').map((n) => [n, 'faction'] as const),
  ...'mount port lake castle fort isle temple city'.split(' ').map((n) => [n, 'place'] as const),
]);

/**
 * The kind a name's head noun gives it: the word before "of" ("Barrow of Seven Stones"), else
 * its last word ("Greyspine Manor"); null for a name whose head is no such noun. A one-word
 * name is its own head only when it is the noun itself used as a name ("the Keep").
 */
export function headNounKind(name: string): 'place' | 'item' | 'faction' | null {
  const words = name
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .split(/\s+/);
  if (words.length === 1) return null;
  // A noun in front names what follows: "House Thunderbrand", "Port Damali", "Mount Hope".
  const lead = LEADING_NOUN_KIND.get(words[0]!);
  if (lead) return lead;
  const of = words.indexOf('of');
  const head = of > 0 ? words[of - 1]! : words.at(-1)!;
  return NOUN_KIND.get(head) ?? NOUN_KIND.get(head.replace(/s$/, '')) ?? null;
}

/** A gesture aimed at someone: "I wave at Thompson", "she glares at Adra" (not a place's "at"). */
export const AIMED_AT_BEFORE =
  /\b(?:look|looks|looked|looking|glance|glances|glanced|stare|stares|stared|glare|glares|glared|smile|smiles|smiled|grin|grins|grinned|wave|waves|waved|nod|nods|nodded|wink|winks|winked|point|points|pointed|shout|shouts|shouted|yell|yells|yelled|laugh|laughs|laughed|scream|screams|snap|snaps|snapped|mad|angry|upset|frown|frowns|fire|fires|fired|firing|shoot|shoots|shot|shooting|swing|swings|swung|throw|throws|threw|lunge|lunges|lunged|charge|charges|charged|spit|spits|spat|aim|aims|aimed|lash|lashes|lashed|strike|strikes|struck)\s+(?:over\s+|back\s+|up\s+|down\s+|right\s+|out\s+)?at\s+$/i;

/** An article or quantity before a name: a kind of thing ("a Scorching Ray", "another Fireball"), not someone. */
export const THING_BEFORE = /\b(?:an?|another|some|two|three|four|five|several|many|more)\s+$/i;

/** A language: "speaks Dwarvish", "all in Common", "written in Infernal". */
export const LANGUAGE_BEFORE =
  /\b(?:speak|speaks|spoke|speaking|understand|understands|read|reads|write|writes|written in|said in|all in|translate|translates|fluent in|language of|tongue of)\s+$/i;

/** Casting or using right before a name: a spell or an ability. */
export const SPELL_BEFORE =
  /\b(?:cast|casts|casting|recast|upcast|use|uses|using|activate|activates|activating|channel|channels|learn|learned|learns|prepare|prepared|concentrating on|concentration on|drop|dropped)\s+(?:my\s+|a\s+|an\s+|the\s+|his\s+|her\s+|their\s+|another\s+|one more\s+)?(?:(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|\d+(?:st|nd|rd|th))[ -]level\s+)?$/i;

/** A rules noun right after a name: "Perception check", "Fireball at third level", "Bless on him". */
export const RULES_AFTER =
  /^(?:['’]s)?\s+(?:spell|spells|cantrip|cantrips|check|checks|save|saves|saving throw|damage|slot|slots|modifier|bonus|attack roll|roll(?!s?\s+(?:his|her|their|its|a|an|for|to|to)\b)|rolls(?!\s+(?:his|her|their|its|a|an|for|to)\b)|dice|feat|proficiency|charges|charge|hit points|at (?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|higher|\d+(?:st|nd|rd|th))(?: |-)level|on (?:him|her|them|it|myself|me|himself|herself|us|you|that|this)|as a (?:bonus action|reaction)|(?:the )?(?:bonus )?action)\b/i;

/**
 * A place or a people named after "of": "the people of X", "the streets of X", "the rest of X".
 * Someone is the "son of", "friend of" or "voice of" somebody, never their people or streets.
 */
export const OF_PLACE_BEFORE =
  /\b(?:people|peoples|folk|folks|children|citizens|denizens|residents|townsfolk|refugees|streets|city|cities|town|towns|village|region|regions|area|areas|outskirts|remnants|ruins|heart|centre|center|walls|gates|lands|borders|edge|sewers?|districts?|quarter|capital|map|flower|history|skies|top|base|foot|summit|peak|slopes|depths|bottom|civilization|continent|country|nation|realm|kingdom|world|most|parts?|corners?|rest)\s+of\s+(?:the\s+)?$/i;

/**
 * A group: "half of X", "the members of X", "my companions, X": a band, an order, a people.
 */
export const GROUP_BEFORE =
  /(?:\b(?:half|members?|leaders?|founders?|rest|each|most|some|none|all) of\s+(?:the\s+)?|\b(?:companions|friends|allies|comrades|colleagues|band|crew|team|group|party|guild|order),\s+(?:the\s+)?)$/i;

/**
 * A weapon or a thing used: "fires Bad News", "wields Whisper", "the Bad News ammunition". The
 * word between is a capitalised one ("fires the Bad News"), read case-sensitively: "drinks with X"
 * is company, not a drink.
 */
export const WIELDED_BEFORE = new RegExp(
  `\\b(?:${capitalOrNot('fire fires fired firing reload reloads reloading wield wields wielding unsheathe unsheathes brandish brandishes equip equips drink drinks drank')}|[Aa]ttune(?:d)? to)\\s+(?:(?:my|his|her|their|the)\\s+)?(?:\\p{Lu}\\p{Ll}+\\s+)?$`,
  'u',
);
export const THING_AFTER =
  /^\s+(?:ammunition|ammo|rounds|bullets|arrows|bolts|barrel|barrels|trigger|blade|hilt)\b/i;

/** Coming or being from somewhere: "we're from X", "away from X", "a day's ride from X". */
export const FROM_PLACE_BEFORE =
  /\b(?:am|are|is|was|were|be|been|come|comes|came|coming|away|far|miles|days|day|hours|ride|walk|travel|travels|traveled|travelled|journey|back|return|returned|returning|fled|flee|escaped|refugees|straight|originally|all the way)\s+from\s+(?:the\s+)?$/i;

/** Owned: "my X", "her X": a thing, a rite or a pet, not someone met ("my Aramente"). */
export const OWNED_BEFORE = /\b(?:my|your|his|her|our|their|its)\s+$/i;

/**
 * Named as a likeness or a reference, not as someone present: "like X", "an impression of X",
 * "named after X": a film's hero, a celebrity, a character of another story.
 */
export const LIKENESS_BEFORE =
  /\b(?:like|as if|such as|named after|impression of|impersonat(?:e|es|ing)|reminds? (?:me|you|us|him|her) of|dressed (?:up )?as|cosplay(?:s|ing)? as|voice of)\s+(?:the\s+)?(?:\p{Lu}[\p{L}.]*\s+)?$/iu;

/**
 * Thanked, hailed or told off by name: "Thank you, Wil.", "Congrats, Amy!", "Damn it, Wheaton.".
 * The narrator says it to the table; the people met are spoken to by the players.
 */
export const HAILED_BEFORE =
  /(?:^|[.!?]\s+|["“]\s*)(?:thank you|thank you so much|thanks|thanks so much|congrats|congratulations|cheers|hey|hi|hello|welcome|good job|well done|nice|great|sorry|bless you|damn it|god damn it|goddammit)(?: again)?,\s*$/i;

/** A cast broken off by counting or a stammer: "I'm going to cast-- two, four, six-- X". */
export const CAST_BROKEN_BEFORE = /\bcast(?:s|ing)?\b[^.!?]{0,40}--\s*$/i;

/**
 * Where the game begins and ends, said by whoever runs it: a recap or "let's begin" opens it,
 * "we'll pick it up next week" closes it, a break opens a pause that "welcome back" ends.
 * What is said before the start, after the end or during a break is the table, not the story.
 */
export const STORY_START =
  /\b(?:last (?:time|week|session) on|last we left|we left off|when we last left|(?:a|our|little|quick) recap|to recap|let['’]s recap|previously on|let['’]s (?:go ahead and )?(?:get started|begin|start|dive in|jump (?:on )?in|play|get into it))\b/i;
export const STORY_END =
  /\b(?:(?:pick|picking) (?:it|that|this|things) (?:back )?up|(?:where|and) we['’]ll (?:end|stop|leave it|pick up)|(?:end|stop|leave it|call it) (?:here|there|for tonight|for the night|for today)|next (?:week|session|time),? we|thanks? (?:you )?(?:all )?(?:so much )?for (?:watching|playing|tuning in|joining))\b/i;
export const BREAK_START =
  /\b(?:take (?:a|our) (?:quick |short |little |brief )?break|(?:going|gonna) to break|we['’]ll be (?:right )?back|be right back|see you (?:guys )?(?:in a (?:few|bit|minute|moment)|after the break|back here|in just a))\b/i;
export const BREAK_END = /\b(?:welcome back|and we['’]re back|we are back)\b/i;

/** Rules talk on a line: dice, checks, hit points, spell levels. */
export const RULES_LINE =
  /\b(?:d4|d6|d8|d10|d12|d20|d100|\d+d\d+|roll(?:s|ed|ing)?|damage|saving throw|save|check|initiative|advantage|disadvantage|hit points|armor class|AC|spell slots?|cantrip|(?:first|second|third|fourth|fifth|\d+(?:st|nd|rd|th))[ -]level|bonus action|reaction|concentration|proficiency|modifier|natural (?:one|twenty|\d+)|nat (?:one|twenty|\d+))\b/i;

/**
 * Talk about the show, not the game: streams, sponsors, episodes, announcements, merchandise,
 * charity drives, breaks. A stretch of lines dense with it is out of the game, and a name named
 * mostly there (a sponsor, a host, a song, the show) belongs to no campaign.
 */
export const OUT_OF_GAME =
  /\b(?:episodes?|stream(?:s|ing|ed)?|livestream|twitch|youtube|podcasts?|sponsor(?:s|ed|ing|ship)?|subscri(?:be|bers?|ption|ptions)|websites?|\.com|www|merch(?:andise)?|promo|discount|coupons?|percent off|announcements?|giveaways?|patreon|kickstarter|twitter|instagram|tweets?|hashtag|fan ?art|fans?|viewers?|audience|winners?|congrat(?:s|ulations)|thank-you|tuning in(?:to)?|guests?|autographs?|broadcast|charity|donat(?:e|ed|ing|ion|ions)|t-shirts?|hoodies?|pre-?orders?|release date|comic con|convention|signing|on sale|available now|check (?:it|them) out|link in|the chat|chatroom|mods?|producers?|the crew|tonight's show|the show|this show|next week|last week|the break|right back|welcome back|bathroom|restroom|snacks|pizza|dinner break|camera|microphone|mic|the app|download)\b/gi;

/** Words with a person's ending that name no one ("water", "order", "door", "letter"). */
const NOT_ROLES = new Set(
  'other another number water corner order power paper letter matter door floor armor armour color colour mirror error flavor flavour after never ever over under silver river tower border chamber shoulder finger weather winter summer dinner supper answer danger hunger manner monster thunder timber trigger glass mess dress chess press address business darkness process progress'.split(
    ' ',
  ),
);
const ROLE_WORDS = new Set(
  'widow widower priest cook maid clerk guard thief chief child wife husband son daughter mother father brother sister friend cousin nephew niece servant butler squire knight witch wizard mage monk nun bard sage scout spy soldier sailor pilot medic doctor nurse agent boss owner leader merchant smuggler mercenary librarian guy kid lad lass man woman men women boy girl lady gentleman fellow elf dwarf halfling gnome orc human goblin tiefling'.split(
    ' ',
  ),
);

/** A word for someone by what they do or are: "laundress", "fishmonger", "housekeeper", "newsboy". */
function roleNoun(word: string): boolean {
  const w = word.toLowerCase();
  if (ROLE_WORDS.has(w)) return true;
  if (NOT_ROLES.has(w) || NOUN_KIND.has(w) || w.length < 5) return false;
  return /(?:er|or|ist|ess|ian|man|woman|boy|girl|monger|smith|wright|keeper)$/.test(w);
}

const ROLE_AFTER = /^,\s+(?:a|an|the|his|her|their|our|my|your)\s+(?:[a-z-]+\s+)?([a-z]+)\b/;
/** The clause the name is the subject of, then what they are: "X runs it, an old man with spectacles". */
const ROLE_AFTER_CLAUSE = /^\s+[a-z][a-z' ]{0,30},\s+(?:a|an)\s+(?:[a-z-]+\s+)?([a-z]+)\b/;
const ROLE_BEFORE =
  /\b(?:[aA]|[aA]n|[tT]he|[hH]is|[hH]er|[tT]heir|[oO]ur|[mM]y|[yY]our)\s+(?:[a-z-]+\s+)?([a-z]+),\s+$/;

/** A vessel named: "the freighter Lucky Moth", "the ship Kestrel": a thing, not someone hailed. */
export const VESSEL_BEFORE =
  /\b(?:the|a|our|my|his|her|their)\s+(?:\p{Ll}+\s+)?(?:ship|starship|spaceship|freighter|cruiser|frigate|destroyer|corvette|shuttle|vessel|boat|airship|yacht|galleon|schooner|barge|steamer|sloop|brig|submarine|train|car|truck|wagon|carriage)\s+$/iu;

/**
 * The given name of a two-word name, said alone only first in its sentence and acting there
 * ("Hamlin Reed, an old man" then "Hamlin tells you"): `extractProperNames` keeps no one-word
 * name said once so; read as any other name, it joins the whole name when it is someone.
 */
export function givenNamesAlone(learned: { name: string }[], lines: { text: string }[]): string[] {
  const out = new Set<string>();
  for (const { name } of learned) {
    const m = /^(\p{Lu}\p{Ll}+) \p{Lu}\p{Ll}+$/u.exec(name);
    if (!m || headNounKind(name) !== null || TITLE_BEFORE.test(`${m[1]} `)) continue;
    const alone = new RegExp(`(?:^|[.!?]\\s+)${m[1]!}(?=[,\\s])`, 'g');
    const acts = lines.some((l) =>
      [...l.text.matchAll(alone)].some((a) => PERSON_AFTER.test(l.text.slice(a.index + a[0].length))),
    );
    if (acts) out.add(m[1]!);
  }
  return [...out];
}

/** Who runs a place or leads others: "run by Oskar Helm", "run by a halfling, Tilly". */
const KEPT_BY_BEFORE =
  /\b(?:run|owned|kept|managed|tended|led|ruled|commanded|captained) by\s+(?:(?:a|an|the)\s+(?:[a-z-]+\s+)?[a-z]+,\s+)?$/;

/** Named beside what they are: "Ruth Connelly, a laundress", "her housekeeper, Bridget Malloy,". */
export function namedByRole(before: string, after: string): boolean {
  const a = ROLE_AFTER.exec(after)?.[1] ?? ROLE_AFTER_CLAUSE.exec(after)?.[1];
  const b = ROLE_BEFORE.exec(before)?.[1];
  return (a !== undefined && roleNoun(a)) || (b !== undefined && roleNoun(b)) || KEPT_BY_BEFORE.test(before);
}

/** A common noun said alone as a name ("Street" of "King Street"): never someone on its own. */
export function commonNounAlone(name: string): boolean {
  return !name.includes(' ') && NOUN_KIND.has(name.toLowerCase());
}

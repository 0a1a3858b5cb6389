// What the human synopses of the CRD3 episodes (the fan wiki's, in each episode's METADATA:
// Critical Role Dungeons and Dragons Dataset, Rameshkumar and Bailey, ACL 2020, CC BY-SA 4.0)
// and the home game's script name, annotated by hand for `pnpm eval`'s codex section. Only the
// story parts of a synopsis count (its recap of earlier episodes included); the announcements,
// breaks and after-show are not the game. Each name is listed with the other names the synopsis
// or the table uses for the same one. `party`: the player characters (with pets and familiars),
// who belong in the party, not among the people met. `notPeople`: names the synopsis gives to
// spells, abilities, rules, items, songs, groups and the show itself: a codex person that is one
// of them is wrong. `alsoPeople`: people that the codex found though the synopsis does not name
// them, judged by hand from the transcript (so that precision counts them as people).
//
// The codex engine was written and tuned looking at C1E001 and C2E003 (`tuned: true`); the other
// episodes and the home game were kept aside and measured once it was done. Then the readings of
// the table's talk (2026-11-28) were written looking at the people C1E005, C1E022, C1E056 and
// C2E030 got wrong, so those are tuned now too. Two sessions written by hand later without
// reading the codex or the chat retrieval, a 1920s Boston investigation (boston-1925.ts) and a
// space-opera game (kestrel-run.ts), their references written from the script before the codex
// was first run on them, were measured once unseen, then the codex was changed looking at what
// it got wrong on them (2026-11-28: titles after "Mrs.", names always first in a sentence, ranks,
// place nouns beyond fantasy, third-person players in the Who Is Who map): they are tuned now.
// Two more written the same way while that change was made, by someone who read neither the
// change nor the codex, a heist in an industrial city (tallow-score.ts) and an online fantasy
// game (wolfjaw-pass.ts), whose references sit next to their scripts (this file is long enough),
// were measured once unseen, then the codex was changed looking at what it missed on them
// (2026-11-28, third pass: titles of office, who runs a shop, "a halfling, X", places named once
// where a narrator sets them): they are tuned now. Two written blind while the third pass was
// made, a Vampire-style chronicle in Manchester (manchester-nights.ts) and a post-apocalyptic
// western one-shot at a convention (rustwater-blues.ts), were measured once unseen, then the codex
// was changed looking at the rules terms and out-of-game words they listed as people (2026-11-28,
// fourth pass: moves named by a repeated capitalised phrase, stats played with "plus", powers
// said as verbs, nationalities, NPCs voiced "As X:"): they are tuned now. Two written blind while
// the fourth pass was made, a Masks-style teen superhero game (gull-point.ts) and a children's
// pirate game at a kitchen table (jolly-pancake.ts), were measured once unseen, then the codex
// was changed looking at what they got wrong (2026-11-28, fifth pass: conditions a character is
// marked with or clears, a household pet talked to out of the game, players who answer "who are
// you?" with a titled name): they are tuned now. Unseen (`tuned: false`): the home game, and two
// written blind while the fifth pass was made, by someone who read neither it nor the codex: a
// 1940s Los Angeles noir mystery (velvet-alibi.ts) and a samurai folklore game (kiri-river.ts).
// Keep those out of any tuning; once a change to the codex is judged on one, mark it tuned and
// add a new session.
import { TALLOW_CODEX } from './tallow-score.ts';
import { WOLFJAW_CODEX } from './wolfjaw-pass.ts';
import { MANCHESTER_CODEX } from './manchester-nights.ts';
import { RUSTWATER_CODEX } from './rustwater-blues.ts';
import { GULL_POINT_CODEX } from './gull-point.ts';
import { JOLLY_PANCAKE_CODEX } from './jolly-pancake.ts';
import { VELVET_ALIBI_CODEX } from './velvet-alibi.ts';
import { KIRI_RIVER_CODEX } from './kiri-river.ts';

export interface CodexReference {
  episode: string;
  tuned: boolean;
  party: string[][];
  npcs: string[][];
  places: string[][];
  notPeople: string[];
  alsoPeople: string[];
}

export const CODEX_REFERENCE: CodexReference[] = [
  {
    episode: 'C1E001',
    tuned: true,
    party: [
      ['Vex', "Vex'ahlia"],
      ['Vax', "Vax'ildan"],
      ['Tiberius'],
      ['Scanlan', 'Scanlan Shorthalt'],
      ['Grog'],
      ['Keyleth'],
      ['Percy'],
      ['Pike', 'Pike Trickfoot'],
      ['Trinket'],
    ],
    npcs: [
      ['Balgus'],
      ['Adra'],
      ['Nostoc Greyspine', 'Nostoc'],
      ['Thompson'],
      ['Lady Kima of Vord', 'Kima', 'Lady Kima'],
      ['Allura Vysoren', 'Allura'],
      ['Belan'],
      ['Margrim'],
    ],
    places: [
      ['Kraghammer'],
      ['Greyspine Manor'],
      ['Greyspine Quarry'],
      ['Pig Pits'],
      ['Iron Hearth Tavern', 'Iron Hearth'],
      ['Emon'],
      ["Tal'Dorei"],
      ["Stone's Pillow"],
    ],
    notPeople: [
      'Fireball',
      'Mage Hand',
      'Glacial Blast',
      'Polymorph',
      'Prestidigitation',
      'Alter Self',
      'Invisibility',
      'Entangle',
      'Telekinesis',
      "Hunter's Mark",
      'Lightning Arrow',
      'Wall of Stone',
      'Scorching Ray',
      'Thunderwave',
      'Lightning Bolt',
      'Blazing Bowstring',
      'Bad News',
      'Thistle Branch Dark Blood Wine',
      'Carvers',
      'House Thunderbrand',
      "Tal'Dorei Council",
      'Vox Machina',
      'Dwarvish',
      'Common',
      'Pathfinder',
      'Dungeons & Dragons',
      'Critical Role',
      'Stronghammer',
    ],
    // Lord and Lady Briarwood (Percy's backstory); the Ironkeeper, the city's ruler.
    alsoPeople: ['Briarwood', 'Ironkeeper'],
  },
  {
    episode: 'C2E003',
    tuned: true,
    party: [['Caleb'], ['Molly', 'Mollymauk'], ['Fjord'], ['Nott'], ['Beau'], ['Jester'], ['Frumpkin']],
    npcs: [['Kylre', 'Kyrle'], ['Toya'], ['Shelby'], ['Traveler', 'The Traveler']],
    places: [
      ['Ustaloch'],
      ['Xhorhas'],
      ['Port Damali'],
      ['Crookedstone Island', 'Crookedstone'],
      ['Burnished Biblios'],
    ],
    notPeople: [
      'Blood Maledict',
      'Eldritch Blast',
      'Chromatic Orb',
      'Detect Good and Evil',
      'Flurry of Blows',
      'Sacred Flame',
      'Spare the Dying',
      'Guiding Bolt',
      'Wrathful Smite',
      'Vicious Mockery',
      'Word of Radiance',
      'Roll Initiative',
      'Crownsguard',
      'Carnival',
      'Brimstone',
      'D&D Beyond',
      'Talks Machina',
      'Critical Role',
      'Play-Doh',
      'Romper Room',
    ],
    // The carnival's Gustav and Ornna, Yorda of the inn, an old man the party calls Gramps.
    alsoPeople: ['Gustav', 'Ornna', 'Yorda', 'Gramps', 'Bosun'],
  },
  {
    episode: 'C1E005',
    tuned: true,
    party: [
      ['Vex', "Vex'ahlia"],
      ['Vax', "Vax'ildan"],
      ['Tiberius'],
      ['Scanlan'],
      ['Grog'],
      ['Keyleth'],
      ['Percy'],
      ['Pike'],
      ['Trinket'],
    ],
    npcs: [
      ['Clarota', 'Clarence'],
      ['Allura Vysoren', 'Allura'],
      ['Lady Kima of Vord', 'Kima', 'Lady Kima'],
      ['King Murghol', 'Murghol'],
      ["K'Varn"],
    ],
    places: [['Kraghammer'], ['Emberhold'], ['Greyspine']],
    notPeople: [
      'Dust of Tracelessness',
      'Glacial Blast',
      'Thorn Whip',
      'Telekinesis',
      'Mass Cure Wounds',
      'Cure Wounds',
      'Feather Fall',
      'Wall of Stone',
      'Scorching Rays',
      'Invisibility',
      'Lightning Arrow',
      'Insect Plague',
      'Lightning Bolt',
      'Thunderwave',
      'Ice Spikes',
      'Firebrand War Hammer',
      'Firebrand Warhammer',
      'Blinkback Belt',
      'Metal Gear',
      'Vox Machina',
      'Critical Role',
      // Judged from the transcript: a giveaway's winner, a guest's name, a film's prince.
      'Amy',
      'Wil',
      'Wil Wheaton',
      'Humperdink',
    ],
    // Judged from the transcript: backstories' people (Pike's ancestor, Percy's captors, Grog's uncle).
    alsoPeople: ['Wilhand', 'Briarwood', 'Kevdak'],
  },
  {
    episode: 'C1E022',
    tuned: true,
    party: [
      ['Vex', "Vex'ahlia"],
      ['Vax', "Vax'ildan"],
      ['Tiberius'],
      ['Scanlan'],
      ['Grog'],
      ['Keyleth'],
      ['Percy', 'Percival'],
      ['Pike'],
      ['Trinket'],
      // Nicknames the players give each other's characters.
      ['Stubby'],
      ['Kiki'],
    ],
    npcs: [
      ['Cerkonos', 'Flamespeaker Cerkonos'],
      ['Osysa'],
      ['Vanessa', 'Huntmaster Vanessa'],
      ['Murtin'],
      ['Tyriok'],
      ['Vilya'],
      ['Lockheed'],
    ],
    places: [
      ['Vasselheim'],
      ["Slayer's Take"],
      ['Temple of Sarenrae'],
      ['Quadroads'],
      ['Sunder Peak'],
      ['Cindergrove'],
      ['Elemental Plane of Fire'],
      ['Pyrah'],
    ],
    notPeople: [
      'Fire Ashari',
      'Ashari',
      'Spark Stone',
      'Vox Machina',
      'Critical Role',
      // Judged from the transcript: a rite, Percy's gun, a spell, a guest player's surname.
      'Aramente',
      'Bad News',
      'Glacial Blast',
      'Wheaton',
    ],
    // Judged from the transcript: three deities, a guide, people of the players' backstories
    // (Korren: Keyleth's father, "My father, Korren", judged 2026-11-28).
    alsoPeople: ['Ioun', 'Vesh', 'Sarenrae', 'Calhoun', 'Kashaw', 'Darin De Paul', 'Faeryn', 'Korren'],
  },
  {
    episode: 'C1E056',
    tuned: true,
    party: [
      ['Vex', "Vex'ahlia"],
      ['Vax', "Vax'ildan"],
      ['Scanlan'],
      ['Grog'],
      ['Keyleth'],
      ['Percy'],
      ['Pike'],
      ['Trinket'],
    ],
    npcs: [['Shale'], ['Umbrasyl', 'Umbrasyl the Hope Devourer'], ['Kevdak'], ['Zanror'], ['Raven Queen']],
    places: [['Westruun'], ['Gatshadow']],
    notPeople: [
      'Herd of Storms',
      'Chroma Conclave',
      'Vox Machina',
      'Critical Role',
      // Judged from the transcript: table talk about a comic-book writer, a hero and a philosopher.
      'Stan Lee',
      'Captain America',
      'America',
      'Lao Tsu',
    ],
    // Judged from the transcript: survivors of Westruun and the people the party asks after.
    alsoPeople: ['Amelia', 'Kaylie', 'Reginald', 'Fassbender', 'Worra', 'Blackfoot', 'Dranzel', 'Joseph'],
  },
  {
    episode: 'C2E030',
    tuned: true,
    party: [
      ['Jester'],
      ['Fjord'],
      ['Beau', 'Beauregard'],
      ['Caduceus'],
      ['Caleb'],
      ['Nott', 'Nott the Brave'],
      ['Yasha'],
      ['Frumpkin'],
    ],
    npcs: [
      ['Molly', 'Mollymauk', 'Mollymauk Tealeaf'],
      ['Keg'],
      ['Nila'],
      ['Shakäste'],
      ['Ophelia', 'Ophelia Mardun'],
      ['The Gentleman', 'Gentleman'],
      ['Lorenzo'],
      ['Cree'],
      ['Lucien'],
      ['Avantika'],
      ['Marius LePual', 'Marius'],
      ['Kara'],
      ['Kutha'],
      ['Sorah'],
    ],
    places: [
      ['Zadash'],
      ['Sour Nest'],
      ['Shadycreek Run'],
      ['Evening Nip'],
      ['Hupperdook'],
      ['Menagerie Coast'],
      ["Wayfarer's Cove"],
      ['Nicodranas'],
      ['Savalirwood'],
      ['Deastok'],
      ['Soltryce Academy'],
      ['Pentamarket'],
      ['Nogvurot'],
      ['Dwendalian Empire', 'Empire'],
    ],
    notPeople: [
      'Iron Shepherds',
      'Mighty Nein',
      'The Mighty Nein',
      "Summer's Dance",
      'Identify',
      'Knock',
      'Cure Wounds',
      'Bag of Holding',
      "Leomund's Tiny Hut",
      'Disguise Self',
      'Decompose',
      'Cobalt Soul',
      'House Jagentoth',
      'Critical Role',
      // Judged from the transcript: a joke villain of the table's.
      'Manacle',
    ],
    // Judged from the transcript: the horses the party names, and the name Ophelia travels under.
    alsoPeople: ['Dancing Queen', 'Fernando', 'Mamma Mia', 'Waterloo', 'John', 'Quinn Denzala', 'Denzala'],
  },
  {
    episode: 'home',
    tuned: false,
    party: [],
    npcs: [
      ['Hedda Vorn', 'Hedda'],
      ['Tobin'],
      ['Grub'],
      ['Queen Under the Hill'],
      ['Mother Sallow'],
      ['Turnip'],
    ],
    places: [['Millbrook'], ['Whisperwood'], ['Barrow of Seven Stones']],
    notPeople: [],
    alsoPeople: [],
  },
  // Written from the script by hand, as a note-taker would, before the codex was run on it; the
  // players at the table (who are not in the story) count as not people.
  {
    episode: 'boston-1925',
    tuned: true,
    party: [['Professor Whitcombe', 'Whitcombe'], ['Nora'], ['Frankie']],
    npcs: [
      ['Adelaide Pickering', 'Mrs. Pickering', 'Pickering'],
      ['Silas Hartwell', 'Hartwell', 'Silas'],
      ['Bridget Malloy', 'Bridget'],
      ['Harriet Lowe', 'Miss Lowe'],
      ['Jonas Abernathy', 'Brother Jonas', 'Jonas'],
      ['Patrick Doyle', 'Sergeant Doyle', 'Doyle'],
      ['Ruth Connelly'],
      ['Sal Benedetto'],
      ['Mickey Fitz'],
      ['Pale Listener', 'The Pale Listener'],
      ['Walsh', 'Mr. Walsh'],
    ],
    places: [
      ['Boston'],
      ['Beacon Hill'],
      ['Louisburg Square'],
      ['Harvard'],
      ['Widener Library'],
      ['Boston Athenaeum', 'Athenaeum'],
      ["Copp's Hill", "Copp's Hill Burying Ground"],
      ['Mather vault', 'Mather tomb'],
      ['North End'],
      ['Charlestown'],
      ['Hanover Street'],
      ['Charlestown Navy Yard', 'Navy Yard'],
      ['Massachusetts General Hospital'],
    ],
    notPeople: [
      // Skills, rolls and rules.
      'Spot Hidden',
      'Library Use',
      'Psychology',
      'Persuade',
      'Credit Rating',
      'Sanity',
      'Stealth',
      'Cthulhu Mythos',
      'Constitution',
      'Intelligence',
      'Strength',
      'First Aid',
      // A spell, a sign, a book, a newspaper.
      'Shrivelling',
      'Elder Sign',
      'Liber Susurrorum',
      'Book of Whispers',
      'Globe',
      // Out of the game: a podcast's people and sponsor, a writer and his story, a witch-hunter
      // named as a likeness, a sister on the phone, the pizza place and its driver, the table.
      'Houdini',
      'Margery',
      'Mina Crandon',
      'HelloFresh',
      'Lovecraft',
      "Pickman's Model",
      'Cotton Mather',
      'Jess',
      "Tony's",
      'Kevin',
      'Dana',
      'Marcus',
      'Lena',
      'Theo',
    ],
    alsoPeople: [],
  },
  {
    episode: 'kestrel-run',
    tuned: true,
    party: [['Captain Voss', 'Voss'], ['Jax'], ['Brother Ilo', 'Ilo']],
    npcs: [
      ['Old Nessa', 'Nessa'],
      ['Broker Quell', 'Quell'],
      ['Master Orun', 'Orun'],
      ['Mira Santos', 'Mira'],
      ['Gorrik'],
      ['Admiral Teodor Kane', 'Teodor Kane', 'Kane'],
    ],
    places: [
      ['Port Ashgrove'],
      ['Korrin Prime', 'Korrin'],
      ['Rusty Comet'],
      ['Tessaly Station', 'Tessaly'],
      ['Haddar'],
      ['Vaelos'],
      ['Drift', 'The Drift'],
    ],
    notPeople: [
      // Ships, factions, an item.
      'Kestrel',
      'Iron Verdict',
      'Lucky Moth',
      'Red Hand',
      'Hegemony',
      'Hegemony Office of Relics',
      "Miners' Union",
      'Lantern of Veth',
      // Powers, skills and rules.
      'Veil',
      'Veil Sense',
      'Veil Push',
      'Mind Shroud',
      'Ember Lance',
      'Insight',
      'Persuasion',
      'Tech',
      'Deception',
      'Piloting',
      'Strength',
      'Dex',
      // Out of the game: films, an actor, another game, the table.
      'Han Solo',
      'Mandalorian',
      'Pedro Pascal',
      'Traveller',
      'Kenji',
      'Ruth',
      'Dev',
      'Ollie',
    ],
    alsoPeople: [],
  },
  TALLOW_CODEX,
  WOLFJAW_CODEX,
  MANCHESTER_CODEX,
  RUSTWATER_CODEX,
  GULL_POINT_CODEX,
  JOLLY_PANCAKE_CODEX,
  VELVET_ALIBI_CODEX,
  KIRI_RIVER_CODEX,
];

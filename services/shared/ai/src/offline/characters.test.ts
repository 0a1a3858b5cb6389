import { describe, expect, it } from 'vitest';
import { characterMapFor, inferCharacterMap } from './characters.ts';
import { findAnswer, namedCast, openThreads, questionType } from './answer.ts';
import { tableTalk, transcriptSentences } from './text.ts';

const table = [
  '[00:00:01] MATT: Welcome, everyone.',
  "[00:00:04] LAURA: Hi! I'm playing Vex'ahlia, the ranger with the bear.",
  '[00:00:09] MATT: Grog, the troll swings at you. What do you do?',
  '[00:00:12] TRAVIS: I hit it with my greataxe.',
  '[00:00:15] MATT: It staggers back. Grog, it is bleeding badly.',
  '[00:00:18] TRAVIS: I hit it again.',
  '[00:00:21] MATT: You hop on your mustang and ride out of the gate.',
  '[00:00:24] TRAVIS: Her name is Shelby.',
  '[00:00:27] MATT: The innkeeper says the rooms cost 15 gold each, and breakfast is extra.',
].join('\n');

describe('who is who', () => {
  it('links players to characters from introductions and from the game master addressing them', () => {
    const links = inferCharacterMap(table).map((l) => [l.speaker, l.character]);
    expect(links).toEqual(
      expect.arrayContaining([
        ['LAURA', "Vex'ahlia"],
        ['TRAVIS', 'Grog'],
      ]),
    );
    expect(links.some(([speaker]) => speaker === 'MATT')).toBe(false);
  });

  it("links a player from whose turn the game master calls, but not from a creature's turn", () => {
    const fight = [
      '[00:00:01] MATT: The ogre swings and misses. That brings us to Vex!',
      '[00:00:04] LAURA: I fire two arrows at it.',
      '[00:00:07] MATT: It staggers, and looks back towards the oozes and Grog. Top of the round, Vex, you’re up.',
      '[00:00:10] LAURA: I shoot again.',
      '[00:00:13] MATT: Toya screams. That brings us to Beau and Jester. That is Toya’s turn.',
      '[00:00:16] LAURA: Oh no.',
      '[00:00:19] MATT: Toya runs. That is Toya’s turn.',
      '[00:00:22] LAURA: Get her!',
    ].join('\n');
    const links = inferCharacterMap(fight).map((l) => [l.speaker, l.character]);
    expect(links).toEqual([['LAURA', 'Vex']]);
  });

  it('links a player a fellow player addresses in character, and takes no common word for a name', () => {
    const party = [
      '[00:00:01] MATT: The carriage stops outside the inn.',
      '[00:00:04] SAM: Caleb, can you read this for me?',
      '[00:00:07] LIAM: Of course. It says to meet at the docks.',
      '[00:00:10] LAURA: What does it say, Caleb?',
      '[00:00:13] LIAM: The docks, at midnight.',
      '[00:00:16] MATT: Here, the innkeeper says, take the key.',
      '[00:00:19] TRAVIS: Thanks.',
      '[00:00:22] MATT: Here, he adds, and hands you a second key. You see here a list of names.',
      '[00:00:25] TRAVIS: I take it. We should go here first.',
    ].join('\n');
    const links = inferCharacterMap(party).map((l) => [l.speaker, l.character]);
    expect(links).toContainEqual(['LIAM', 'Caleb']);
    expect(links.some(([, character]) => character === 'Here')).toBe(false);
  });

  it('types the names of a story: who speaks or is spoken to is a person, whatever "to" came before', () => {
    const story = transcriptSentences(
      [
        '[00:00:01] MATT: You hand the letter to Ophelia and Ophelia nods.',
        '[00:00:04] MATT: You travel to Zadash. In Zadash the streets are busy.',
        '[00:00:07] MATT: You turn to Ophelia, who smiles. The road to Zadash is long.',
        '[00:00:10] MATT: You reach into the Bag of Holding, and in the Bag of Holding you find the map.',
        "[00:00:13] MATT: Mollymauk's coat hangs there; you go back to Mollymauk, and then to Molly's grave, where Molly says goodbye.",
        '[00:00:16] MATT: Molly smiles at you. Back to Mollymauk for a moment.',
        '[00:00:19] LAURA: Oh, Shit, and then Shit again, Fucking hell, you and your Fucking bear.',
        '[00:00:22] SAM: I cast Vicious Mockery, and then Vicious Mockery again.',
      ].join('\n'),
    );
    const { characters, places } = namedCast(story, 2);
    // Molly and Mollymauk are one person, listed once under the name written most.
    expect(characters).toEqual(expect.arrayContaining(['Ophelia', 'Molly']));
    expect(characters).not.toContain('Mollymauk');
    expect(places).toEqual(['Zadash']);
    expect([...characters, ...places].some((n) => n.startsWith('Bag'))).toBe(false);
    // Swearing is not somebody.
    expect(characters).not.toContain('Shit');
    expect(characters).not.toContain('Fucking');
    expect(characters).not.toContain('Vicious Mockery');
  });

  it("takes no language, no word mostly written in lower case, and a daughter's father for a person", () => {
    const story = transcriptSentences(
      [
        '[00:00:01] MATT: They all start speaking Black Speech, and you shout back in Black Speech.',
        '[00:00:04] MATT: The lava rises. The lava glows, and the lava hisses around the lava pools.',
        '[00:00:07] LAURA: Oh! Lava pools, Lava pools.',
        '[00:00:08] MATT: The lava pours into the tunnel, and the lava cools.',
        "[00:00:10] LIAM: I ask my sister to point me towards Reginald's daughter.",
        "[00:00:13] LAURA: We knew Reginald. Reginald's wife waits by the door.",
        '[00:00:16] MATT: You ride to Westruun. In Westruun the gates are open.',
      ].join('\n'),
    );
    const { characters, places } = namedCast(story, 2);
    expect([...characters, ...places]).not.toContain('Black Speech');
    expect([...characters, ...places]).not.toContain('Lava');
    expect(characters).toContain('Reginald');
    expect(places).toEqual(['Westruun']);
  });

  it('takes a spell by how it is used, a name called out or whose turn it is for a person, and no sponsor', () => {
    const story = transcriptSentences(
      [
        '[00:00:01] LIAM: Now I cast Featherfall on myself. He cast Featherfall as well.',
        '[00:00:04] MARISHA: Will my Thorn Whip reach him? I will try and pull it with the Thorn Whip spell.',
        '[00:00:07] MATT: That brings us to Vex. Then back to Vex, who is next to Clarota.',
        '[00:00:10] MATT: (gasps) Vex, what are you doing? Clarota shakes his head at Vex.',
        '[00:00:13] MATT: Our sponsor is D&D Beyond, and D&D Beyond has the rules. Clarota nods.',
        '[00:00:16] MATT: Clarota whispers, "Stay at bay." Clarota says, "Stay here."',
        "[00:00:19] LAURA: I Hunter's Mark him! I'm going to Hunter's Mark one of the little ones.",
        "[00:00:22] MATT: You return to the Slayer's Take. Back at the Slayer's Take, Vanessa nods.",
        "[00:00:25] LAURA: I'm going to name him Lockheed. I'm feeding Lockheed some water.",
      ].join('\n'),
    );
    const { characters, places } = namedCast(story, 2);
    expect(characters).toEqual(expect.arrayContaining(['Vex', 'Clarota', 'Lockheed']));
    expect(places).not.toContain('Vex');
    // A name with a possessive inside keeps it.
    expect(places).toContain("Slayer's Take");
    for (const nobody of ['Featherfall', 'Thorn Whip', 'Beyond', 'Stay', "Hunter's Mark", 'Hunter Mark']) {
      expect([...characters, ...places]).not.toContain(nobody);
    }
  });

  it("keeps the user's links and fills in the rest; a character's short name finds its player", () => {
    const map = characterMapFor(table, [{ speaker: 'LAURA', character: 'Vex' }]);
    expect(map.characterOf('LAURA')).toBe('Vex');
    expect(map.characterOf('TRAVIS')).toBe('Grog');
    expect(map.named("What did Grog's axe do?")).toEqual([{ speaker: 'TRAVIS', character: 'Grog' }]);
  });

  it('learns the pronouns the table uses for a character, and guesses none from thin evidence', () => {
    const told = [
      table,
      '[00:01:00] MATT: Grog swings his axe. Vex draws her bow, and Grog ducks as he hears it.',
      "[00:01:10] SAM: Vex'ahlia, she's the best shot. Grog, did he just burp?",
      '[00:01:20] MATT: Grog shrugs. Vex nocks her arrow.',
    ].join('\n');
    const inferred = characterMapFor(told);
    expect(inferred.pronounsOf('Grog')).toBe('he');
    expect(inferred.pronounsOf("Vex'ahlia")).toBe('she');
    // Once is not enough to tell.
    const thin = characterMapFor(table);
    expect(thin.pronounsOf('Grog')).toBe('they');
    expect(thin.pronounsOf("Vex'ahlia")).toBe('they');
    // The user's own link gets the pronouns the transcript uses for it.
    const map = characterMapFor(told, [{ speaker: 'LAURA', character: 'Vex' }]);
    expect(map.pronounsOf('Vex')).toBe('she');
    expect(map.pronounsOf('Grog')).toBe('he');
    expect(map.pronounsOf('Pike')).toBe('they');
  });
});

describe('table talk', () => {
  it('takes a call for a check, a rules reminder or talk of the game for the table, not the story', () => {
    expect(tableTalk('Percy, I want you to go ahead and make a tinkering check.')).toBeGreaterThan(0.3);
    expect(tableTalk('Do keep in mind, the Bag of Holding can hold upwards of 500 pounds.')).toBeGreaterThan(
      0.3,
    );
    expect(tableTalk('Give me an Intelligence saving throw.')).toBeGreaterThan(0.3);
    expect(tableTalk('Is it too early in the campaign to walk away?')).toBeGreaterThan(0.3);
    expect(tableTalk('The first piece of paper of the game!')).toBeGreaterThan(0.3);
    expect(tableTalk('You check the door for traps and find the hidden latch.')).toBe(0);
  });
});

describe('open threads', () => {
  it('keeps what the story leaves open, not questions about the rules, the dice or the show', () => {
    const lines = transcriptSentences(
      [
        '[01:00:00] LIAM: First, can I use a ritual spell for this one?',
        '[01:00:05] SAM: Do I have enough speed to get next to Vex there?',
        '[01:00:10] LAURA: Keyleth, 31, on top of the six, four and six?',
        '[01:00:15] SAM: Ophelia, do you know the secret code to the vault?',
        '[01:00:20] MATT: Hope you all have a wonderful weekend, and is it Thursday yet?',
        '[01:00:25] MATT: The letter says the heir of Whitestone must return before the winter ends.',
      ].join('\n'),
    );
    const threads = openThreads(lines, 4, ['Ophelia', 'Whitestone']).map((s) => s.time);
    expect(threads).toEqual(['01:00:25', '01:00:15']);
  });

  it('takes no missed attack, no rule and no short aside for a thread', () => {
    const lines = transcriptSentences(
      [
        "[02:00:00] MATT: As Tiberius is missing he'll form it into a spike at the end.",
        "[02:00:05] TRAVIS: If Grog wanted to do a frenzy action, but he doesn't need to.",
        '[02:00:10] SAM: I need to make another.',
        '[02:00:15] MATT: Mysterious appearance of paper towels.',
        '[02:00:20] MATT: The miller says his daughter has gone missing since the storm two nights ago.',
      ].join('\n'),
    );
    expect(openThreads(lines, 4, []).map((s) => s.time)).toEqual(['02:00:20']);
  });

  it('takes what is promised or sought before a question, and no question of distance or size', () => {
    const lines = transcriptSentences(
      [
        '[03:00:00] MATT: Ophelia promises to find out who took the crystal from Zadash.',
        '[03:00:05] LIAM: How far away is Ophelia from the lava?',
        '[03:00:10] SAM: Is Zadash bigger or smaller than Westruun?',
        '[03:00:15] LAURA: I back up against the wall so I can hide if I need to, and I call Trinket.',
        '[03:00:20] TRAVIS: Ophelia, where did you hide the key to the vault below Zadash?',
      ].join('\n'),
    );
    expect(openThreads(lines, 1, ['Ophelia', 'Zadash', 'Trinket']).map((s) => s.time)).toEqual(['03:00:00']);
    expect(openThreads(lines, 4, ['Ophelia', 'Zadash', 'Trinket']).map((s) => s.time)).toEqual([
      '03:00:20',
      '03:00:00',
    ]);
  });
});

describe('answers', () => {
  it('tells question types apart', () => {
    expect(questionType('What did Fjord name his horse?')).toBe('name');
    expect(questionType('How many rooms did they take?')).toBe('count');
    expect(questionType('Who healed Grog?')).toBe('who');
    expect(questionType('What did the acid do?')).toBe('what');
  });

  it('finds the line after the match that holds the name, and the one with the number', () => {
    const named = findAnswer(table, 'What did Grog name his horse?')!;
    expect(named.lines[named.answer.pos]!.time).toBe('00:00:24');
    const priced = findAnswer(table, 'How much do the rooms cost?')!;
    expect(priced.lines[priced.answer.pos]!.time).toBe('00:00:27');
    expect(priced.answer.sentence).toContain('15 gold');
  });

  it("answers a name question with a name: not a guess, a player's name or a sentence's first word", () => {
    const stable = [
      '[00:44:15] TRAVIS: Is that single horse a mustang? The horse looks fast.',
      '[00:44:20] MATT: That is a mustang.',
      '[00:44:25] LIAM: Is its name Roy?',
      '[00:44:30] MARISHA: Correctly picked the horse, Travis!',
      '[00:44:35] SAM: Drops a couple of horse apples.',
      '[00:45:00] LAURA: We should get going.',
      '[00:48:21] MATT: You hop on your mustang.',
      '[00:48:23] TRAVIS: I do. Shelby.',
      '[00:48:30] LAURA: Do you remember that tavern called The Leaky Nip?',
      '[00:48:40] SAM: What a night that was.',
    ].join('\n');
    const fjord = [{ speaker: 'TRAVIS', character: 'Fjord' }];
    const horse = findAnswer(stable, 'What did Fjord name his horse?', fjord)!;
    expect(horse.lines[horse.answer.pos]!.time).toBe('00:48:23');
    expect(horse.answer.sentence).toBe('Shelby.');
    // A name that a question gives ("called ...") still answers.
    const tavern = findAnswer(stable, 'What is the tavern called?', fjord)!;
    expect(tavern.lines[tavern.answer.pos]!.time).toBe('00:48:30');
  });
});

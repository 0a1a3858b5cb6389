import { describe, expect, it } from 'vitest';
import { compress, narrate, plainPresent, thirdSingular, toParty, toThirdPerson } from './narrate.ts';

const ctx = { character: null, narrator: false, characters: ['Vex', 'Caleb'] };

describe('narrate', () => {
  it('cuts discourse markers, hedges, stage notes and trailing asides', () => {
    expect(compress('Okay, so, well, I just attack the goblin. (laughter)')).toBe('I attack the goblin.');
    expect(compress('Yeah, I mean, he becomes visible again, about 20 feet out, and he just--')).toBe(
      'He becomes visible again, about 20 feet out.',
    );
    expect(compress('As he is frozen in place, Clarota steps up to the front of him.')).toBe(
      'Clarota steps up to the front of him.',
    );
    // The game master framing a ruling before telling it.
    expect(compress('I will say for the purposes of this, you watch as Nott pulls the mask back.')).toBe(
      'You watch as Nott pulls the mask back.',
    );
    expect(compress('Easy enough, and as you exit the tavern, you see two guards.')).toBe(
      'As you exit the tavern, you see two guards.',
    );
    expect(compress('For now, the door holds.')).toBe('For now, the door holds.');
    // A start broken off before the sentence proper.
    expect(compress('I--" And she takes a long sip of her flagon and sets it down.')).toBe(
      'She takes a long sip of her flagon and sets it down.',
    );
  });

  it("uses a character's pronouns when the table's are known, and 'they' when not", () => {
    expect(toThirdPerson("I draw my bow and I'm aiming at the troll myself.", 'Vex', 'I', 'she')).toBe(
      "Vex draws her bow and she's aiming at the troll herself.",
    );
    expect(toThirdPerson('I shove him and then I run, mine is the last turn.', 'Grog', 'I', 'he')).toBe(
      'Grog shoves him and then he runs, his is the last turn.',
    );
    expect(toThirdPerson('I draw my bow and I fire.', 'Vex', 'I')).toBe('Vex draws their bow and they fire.');
    // The game master's "you" addressed to a character who is known as "he".
    const pronounsOf = (c: string) => (c === 'Caleb' ? 'he' : 'they') as 'he' | 'they';
    expect(
      narrate('Caleb, you reach into your pouch and it bites you.', { ...ctx, narrator: true, pronounsOf }),
    ).toBe('Caleb reaches into his pouch and it bites him.');
    expect(narrate('I am tired and I want my bed.', { ...ctx, character: 'Vex', pronounsOf })).toBe(
      'Vex is tired and they want their bed.',
    );
  });

  it("leaves what a character says in quotes as said, and tells 'three of you' of the party", () => {
    const gm = {
      ...ctx,
      narrator: true,
      characters: ['Caleb', 'Fjord'],
      addressee: 'Caleb',
      pronounsOf: () => 'he' as const,
    };
    expect(narrate('You look at him and he says, "You should leave." You nod.', gm)).toBe(
      'Caleb looks at him and he says, "You should leave." He nods.',
    );
    expect(narrate('The three of you dart outside and make your way down the alley.', gm)).toBe(
      'The three of them dart outside and make their way down the alley.',
    );
    // After a participle, "you" is its object; so is "you" before "away."
    expect(
      narrate('Seeing you there, the toad lunges and knocks you away.', { ...gm, addressee: null }),
    ).toBe('Seeing them there, the toad lunges and knocks them away.');
  });

  it("tells a player's first person of their character, conjugating the verb", () => {
    expect(thirdSingular('attack')).toBe('attacks');
    expect(thirdSingular('reach')).toBe('reaches');
    expect(thirdSingular('try')).toBe('tries');
    expect(thirdSingular('went')).toBe('went');
    expect(thirdSingular('can')).toBe('can');
    // A word that names a property of every object is still just a word.
    expect(thirdSingular('constructor')).toBe('constructors');
    expect(toThirdPerson('I attack the goblin with my sword.', 'Vex', 'I')).toBe(
      'Vex attacks the goblin with their sword.',
    );
    expect(toThirdPerson("I'm going to cast fireball, and I don't stop.", 'Vex', 'I')).toBe(
      "Vex is going to cast fireball, and they don't stop.",
    );
    expect(narrate('Okay, I go to the door.', { ...ctx, character: 'Vex' })).toBe('Vex goes to the door.');
    // "I" is a subject wherever it stands; "oh my gosh" belongs to nobody.
    expect(narrate('I think I know why he needs to go back.', { ...ctx, character: 'Pike' })).toBe(
      'Pike thinks they know why he needs to go back.',
    );
    expect(narrate('Oh my gosh, I love this.', { ...ctx, character: 'Jester' })).toBe('Jester loves this.');
    // A player telling of their own character in the third person is told as it is.
    expect(narrate('Caleb is too poor for that.', { ...ctx, character: 'Caleb' })).toBe(
      'Caleb is too poor for that.',
    );
    expect(narrate('Calebs are everywhere.', { ...ctx, character: 'Caleb' })).toBe(
      'Caleb: Calebs are everywhere.',
    );
    // After a modal the verb keeps its form.
    expect(narrate('Can I talk to good old Nostoc?', { ...ctx, character: 'Vex' })).toBe(
      'Can Vex talk to good old Nostoc?',
    );
    // At the table "I cast" is done now, not in the past.
    expect(narrate('I cast Hunter’s Mark on the bear.', { ...ctx, character: 'Vex' })).toBe(
      'Vex casts Hunter’s Mark on the bear.',
    );
    // A line without a first person keeps the character's name in front.
    expect(narrate('The ranger with the bear.', { ...ctx, character: 'Vex' })).toBe(
      'Vex: The ranger with the bear.',
    );
  });

  it("tells the game master's second person of the party, or of the character addressed", () => {
    expect(toParty('You guys find your way to the inn, where it hits you.')).toBe(
      'They find their way to the inn, where it hits them.',
    );
    // "You folks" is the party as well, not a name and a verb ("Nott folkses").
    expect(toParty('You folks head to the inn.')).toBe('They head to the inn.');
    expect(toParty('The rooms will run you per evening 25 gold.')).toBe(
      'The rooms will run them per evening 25 gold.',
    );
    expect(
      narrate('The moonlight gives you folks without darkvision some detail.', {
        ...ctx,
        narrator: true,
        addressee: 'Caleb',
      }),
    ).toBe('The moonlight gives them without darkvision some detail.');
    expect(toParty("You're in the room; those of you who look see a face you haven't seen.")).toBe(
      "They're in the room; those of them who look see a face they haven't seen.",
    );
    expect(narrate('Caleb, you find a passage about a demon.', { ...ctx, narrator: true })).toBe(
      'Caleb finds a passage about a demon.',
    );
    expect(narrate('You see the stairs.', { ...ctx, narrator: true, addressee: 'Vex' })).toBe(
      'Vex sees the stairs.',
    );
    // Questions to the table stay as they were asked.
    expect(narrate('What do you do?', { ...ctx, narrator: true })).toBe('What do you do?');
  });

  it('tells "you" after a preposition, before a name or after "something" right', () => {
    expect(toParty('You have ten gold between you nine from Fjord.')).toBe(
      'They have ten gold between them nine from Fjord.',
    );
    expect(toParty('You see before you Vex and Grog.')).toBe('They see before them Vex and Grog.');
    expect(toParty('Before you go, you see a door.')).toBe('Before they go, they see a door.');
    expect(toParty('Vapors or something you can use will wake him.')).toBe(
      'Vapors or something they can use will wake him.',
    );
    expect(toThirdPerson('Caleb watches until you see a light.', 'Nott', 'you')).toBe(
      'Caleb watches until Nott sees a light.',
    );
  });

  it('tells "you and Percy" before their verb as a subject, and after one as an object', () => {
    expect(toParty('The story bits you and Percy have been working on.')).toBe(
      'The story bits they and Percy have been working on.',
    );
    expect(toThirdPerson('The thing you and Grog found is gone.', 'Vex', 'you')).toBe(
      'The thing Vex and Grog found is gone.',
    );
    expect(toParty('It hits you and Percy.')).toBe('It hits them and Percy.');
    expect(toParty('He looks at you and Percy gets up.')).toBe('He looks at them and Percy gets up.');
  });

  it("conjugates the same character's next verbs after 'and'", () => {
    const vex = { ...ctx, character: 'Vex' };
    expect(narrate('I cast Hunter’s Mark and fire at the ooze.', vex)).toBe(
      'Vex casts Hunter’s Mark and fires at the ooze.',
    );
    expect(narrate('I grab the rope and then climb, and Grog follows.', vex)).toBe(
      'Vex grabs the rope and then climbs, and Grog follows.',
    );
    expect(narrate('I now see the city and then blink.', vex)).toBe('Vex now sees the city and then blinks.');
    expect(narrate('I try and swing at the imp.', vex)).toBe('Vex tries to swing at the imp.');
    // Not a verb of hers: "cheers" stays a noun.
    expect(narrate('I look at the fireworks and cheers.', vex)).toBe(
      'Vex looks at the fireworks and cheers.',
    );
  });

  it('finds the character called on mid-sentence, and says "thank you" as it was said', () => {
    const gm = { ...ctx, narrator: true, characters: ['Percy', 'Grog'] };
    expect(narrate("Top of the round, Percy you're up.", gm)).toBe('Top of the round, Percy is up.');
    expect(narrate('Thank you again, a great session tonight.', gm)).toBe(
      'Thank you again, a great session tonight.',
    );
    expect(narrate('Thank you, and you see the gate.', { ...gm, addressee: 'Grog' })).toBe(
      'Thank you, and Grog sees the gate.',
    );
  });

  it('tells "you guys" as one "you", and a player\'s "Do I" of one character', () => {
    const gm = { ...ctx, narrator: true };
    expect(narrate("They're not too keen on you guys.", gm)).toBe("They're not too keen on them.");
    expect(narrate('As the javelins strike all you guys, it explodes.', gm)).toBe(
      'As the javelins strike them, it explodes.',
    );
    expect(narrate('Are you all right?', gm)).toBe('Are you all right?');
    const percy = { ...ctx, character: 'Percy' };
    expect(narrate('Do I get to roll more hit points?', percy)).toBe(
      'Does Percy get to roll more hit points?',
    );
    expect(narrate('Am I close enough?', percy)).toBe('Is Percy close enough?');
  });

  it('drops a stutter and what a stage note leaves behind, and keeps a question asked in character', () => {
    expect(
      narrate('All right, so you, you blast the ogre with three.', {
        ...ctx,
        narrator: true,
        addressee: 'Vex',
      }),
    ).toBe('Vex blasts the ogre with three.');
    expect(compress('The dwarves at the door go, (hearty laughter).')).toBe('The dwarves at the door go.');
    expect(compress('Your jury summons is (groans).')).toBe('Your jury summons is…');
    expect(narrate('Have you seen my son?', { ...ctx, character: 'Caleb' })).toBe(
      'Caleb: Have you seen my son?',
    );
    // Said to someone, it stays as said; to the table, or thanks, it is told.
    expect(
      narrate('I saved your life. You should be really grateful.', { ...ctx, character: 'Jester' }),
    ).toBe('Jester: I saved your life. You should be grateful.');
    expect(narrate('Thank you, I grab the rope.', { ...ctx, character: 'Jester' })).toBe(
      'Thank you, Jester grabs the rope.',
    );
  });

  it('leaves out "you guys" called out to the table', () => {
    expect(narrate("You guys, I've never had one.", { ...ctx, narrator: true })).toBe("I've never had one.");
    expect(narrate('It is as good as the letter, you guys!', { ...ctx, narrator: true })).toBe(
      'It is as good as the letter!',
    );
    expect(narrate('You guys find a door.', { ...ctx, narrator: true })).toBe('They find a door.');
  });
});

describe('narrate, more than one subject', () => {
  it('names the subject once and says "they" after', () => {
    expect(toThirdPerson('I sprain my ankle as I land and I was fine.', 'Beau', 'I')).toBe(
      'Beau sprains their ankle as they land and they were fine.',
    );
    expect(
      narrate('A bolt almost hits you, Jester.', { character: null, narrator: true, characters: ['Jester'] }),
    ).toBe('A bolt almost hits them.');
    expect(
      narrate('Molly, your eyes lull open.', { character: null, narrator: true, characters: ['Molly'] }),
    ).toBe("Molly's eyes lull open.");
  });
});

describe('narrate, perception', () => {
  it('tells what a character perceives as it happens', () => {
    expect(
      narrate('You can see a faint landmass.', { character: null, narrator: true, characters: [] }),
    ).toBe('They see a faint landmass.');
    expect(
      narrate('I can hear footsteps.', { character: 'Nott', narrator: false, characters: ['Nott'] }),
    ).toBe('Nott hears footsteps.');
  });
});

describe('narrate, verbs and clauses', () => {
  it('skips adverbs to the verb, conjugates "need", and keeps a main clause whole', () => {
    expect(toThirdPerson('I fucking saunter away.', 'Fjord', 'I')).toBe('Fjord fucking saunters away.');
    expect(toThirdPerson('I need 20 seconds.', 'Caleb', 'I')).toBe('Caleb needs 20 seconds.');
    expect(compress('As Fjord slowly walks away from the table, not engaging with your advances.')).toBe(
      'As Fjord slowly walks away from the table, not engaging with your advances.',
    );
  });
});

describe('narrate, stage notes and broken-off thoughts', () => {
  it('drops the table stage notes, keeps sound effects, and marks a hanging thought', () => {
    expect(compress('He falls (laughter) to the ground with a heavy (thud).')).toBe(
      'He falls to the ground with a heavy (thud).',
    );
    expect(compress('The path they took was essentially--')).toBe('The path they took was essentially…');
    expect(toParty('You, as soon as you look up, see two creatures.')).toBe(
      'They, as soon as they look up, see two creatures.',
    );
  });
});

describe("narrate, the party in a player's words", () => {
  it('tells "we" of the party and "Let\'s" as a proposal', () => {
    const ctx = { character: 'Fjord', narrator: false, characters: ['Fjord'] };
    expect(narrate('If we get out tonight, we should find a boat.', ctx)).toBe(
      'If they get out tonight, they should find a boat.',
    );
    expect(narrate("Let's steal a boat.", ctx)).toBe('Fjord proposes they steal a boat.');
  });

  it('tells intent as what happens, the way a recap reads', () => {
    expect(plainPresent('Vex is going to cast Hunter’s Mark.')).toBe('Vex casts Hunter’s Mark.');
    expect(plainPresent("They're going to run, and it's going to take hours.")).toBe(
      'They run, and it takes hours.',
    );
    expect(plainPresent("He's just going to be fine.")).toBe('He is just fine.');
    expect(plainPresent('Grog is going to try and hit it.')).toBe('Grog tries to hit it.');
    // Not a subject that narration has not told yet, nor "there is going to be".
    expect(plainPresent("I'm going to run. There's going to be a fight.")).toBe(
      "I'm going to run. There's going to be a fight.",
    );
    expect(narrate("Okay, I'm going to attack the goblin.", { ...ctx, character: 'Vex' })).toBe(
      'Vex attacks the goblin.',
    );
  });
});

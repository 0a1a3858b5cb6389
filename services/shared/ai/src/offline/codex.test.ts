import { formatTranscriptLine, inferCharacterMap } from '@chronicler/contracts';
import { describe, expect, it } from 'vitest';
import {
  CAMPAIGN_LINKS,
  SESSION_ONE,
  SESSION_THREE,
  SESSION_TWO,
} from '../../../../../tests/support/codex-campaign.ts';
import { extractCodexOffline } from './codex.ts';
import { characterRecapText } from './story.ts';

const session = (script: string) =>
  script
    .trim()
    .split('\n')
    .map((l, i) => {
      const [speaker, ...rest] = l.split(': ');
      return formatTranscriptLine({ seconds: i * 6, speaker: speaker!, text: rest.join(': ') });
    })
    .join('\n');
const kinds = (transcript: string) =>
  Object.fromEntries(
    extractCodexOffline({ name: 'S', transcript, characters: CAMPAIGN_LINKS }).map((f) => [f.name, f.kind]),
  );

describe('the offline codex reads how names are used', () => {
  it('someone by a title or a verb of speech, somewhere by a preposition of place, a thing by its head noun', () => {
    const found = kinds(
      session(`
GM: Lady Orsolya greets you at the gate. Orsolya says the roads are closed.
Sam: Bryn bows to Orsolya.
GM: You ride on toward Velmarch and reach Velmarch by nightfall.
Priya: Kestrel asks where the Amber Lantern is kept.
GM: The Amber Lantern sits in the vault. Nobody has touched the Amber Lantern in years.
GM: House Dravenholt owns the vault. Their guards wear the crest of House Dravenholt.`),
    );
    expect(found).toMatchObject({
      Orsolya: 'person',
      Velmarch: 'place',
      'Amber Lantern': 'item',
      'House Dravenholt': 'faction',
    });
  });

  // The show's talk is a stretch dense with it (3 signs within 4 lines either side): the game's
  // first lines after it are read once the stretch is behind.
  it('leaves out spells and rules, the party, whoever the table gives turns to, and talk about the show', () => {
    const found = kinds(
      session(`
GM: Welcome back to the stream! Thanks to our sponsor, Dicelords, check them out at their website.
GM: Dicelords has a discount code for viewers this episode, link in the chat. Dicelords!
Sam: Go subscribe to the podcast too. Dicelords rules.
GM: Okay, back to the game. Last time you reached the old mill at the edge of the marsh.
Sam: Right, we were looking for the miller's boy.
Priya: And it was raining, I remember the mud.
GM: The mill door hangs open. Inside, flour covers everything.
GM: The ogre Grimbold swings at you. Grimbold says you will pay.
Sam: I cast Frost Lance at Grimbold. Frost Lance, second level.
GM: Roll damage for Frost Lance. Grimbold staggers. That brings us to Tamsin!
Priya: Tamsin draws her bow. I shoot Grimbold.
GM: Grimbold falls. That brings us to Tamsin again. Tamsin, what do you do?
Priya: Kestrel and Tamsin search Grimbold.`),
    );
    expect(found.Grimbold).toBe('person');
    expect(Object.keys(found)).not.toContain('Frost Lance');
    expect(Object.keys(found)).not.toContain('Dicelords');
    expect(Object.keys(found)).not.toContain('Tamsin');
    expect(Object.keys(found)).not.toContain('Kestrel');
  });

  // Lines of play with no name in them, so that the table talk sits within the session's first
  // and last tenth, as it does in a real one.
  const play = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      i % 2 ? `Priya: I keep watch, step ${i}.` : `GM: The road bends on, mile ${i}.`,
    ).join('\n');

  it('leaves out what is said before the game starts, after it ends and during a break', () => {
    const found = kinds(
      session(`
GM: Hi all! Before we start, Marguerite sent us cookies, Marguerite is the best.
Sam: Marguerite, you legend. Marguerite bakes every week.
GM: All right. Last we left off, you stood at the gates of Velmarch.
${play(20)}
GM: On the dock you meet Corvin, who waves you aboard. Corvin says the river is high.
GM: Let's take a quick break, we'll be right back.
Sam: Did anyone see Bartholomew's new video? Bartholomew says hello.
Priya: Bartholomew is so funny. Bartholomew, if you're watching, hi.
GM: Welcome back! You watch Corvin pole the ferry across.
${play(20)}
GM: And we'll pick it up next week. Thanks for playing.
Priya: Thanks to Ottoline for the dice! Ottoline says hi. Ottoline, you rock.`),
    );
    expect(found.Corvin).toBe('person');
    for (const name of ['Marguerite', 'Bartholomew', 'Ottoline']) expect(found[name]).toBeUndefined();
  });

  it('leaves out someone the narrator thanks, a likeness, a player-only aside, a thing owned or fired', () => {
    const found = kinds(
      session(`
${play(10)}
Priya: This die was a gift from Wilbur. Thank you, Wilbur.
GM: Thank you, Wilbur. Okay, the ferryman Corvin nods at you. Corvin says the toll is two silver.
Sam: I track them like Prince Florizel would. Can I?
Sam: The real villain is secretly Mister Grumbleton.
Priya: I am here to finish my Varnathi. My Varnathi has taken years.
GM: Your Varnathi is nearly done. The Varnathi ends at the lake.
Sam: I pull out the pistol and fire Sweet Talk at him. Then I fire Sweet Talk again.
GM: Sweet Talk booms. Reload the Sweet Talk ammunition.
Priya: I'm going to cast-- one, two, three-- Frozen Spear at him! Frozen Spear!
${play(10)}`),
    );
    expect(found.Corvin).toBe('person');
    for (const name of ['Wilbur', 'Florizel', 'Grumbleton', 'Varnathi', 'Sweet Talk', 'Talk', 'Frozen Spear'])
      expect(found[name]).toBeUndefined();
  });

  it('reads a place by its people and its roads, a group by its members', () => {
    const found = kinds(
      session(`
${play(10)}
GM: The people of Harrowgate cheer. The children of Harrowgate sing.
Sam: Harrowgate will rebuild. We came here from Harrowgate.
GM: Refugees stream away from Harrowgate. Harrowgate burns behind them.
Priya: These are my companions, the Grey Wanderers. Half of the Grey Wanderers are asleep.
GM: The Grey Wanderers nod. Members of the Grey Wanderers stand guard.
${play(10)}`),
    );
    expect(found).toMatchObject({ Harrowgate: 'place', 'Grey Wanderers': 'faction' });
  });

  it('reads names after "Mrs.", names always first in a sentence, ranks, roles, planets and ships', () => {
    const transcript = session(`
GM: A letter comes from Mrs. Odile Farrow, a widow. Mrs. Farrow wants her nephew found.
Sam: Bryn asks Mrs. Farrow about the nephew.
GM: Mott is the harbour clerk. Mott admits he lied. Mott looks away.
GM: On the screen is Commodore Ysolde Brask, grey uniform. Brask rolls her save and fails.
GM: Brask nods once. Her quartermaster, Pell Ordway, salutes.
GM: You land on Varra Prime, then fly to the moon Teshar. Varra Prime is cold, and Teshar is colder.
Priya: Kestrel waits in the Broken Spoke, the cantina by the docks. The Broken Spoke is empty.
Sam: We fly the freighter Grey Heron now. Hail them as the Grey Heron, Bryn says.
GM: The patrol answers: proceed, Grey Heron.`);
    const found = extractCodexOffline({ name: 'S', transcript, characters: CAMPAIGN_LINKS });
    const byName = (n: string) => found.find((f) => f.name === n || f.aliases.includes(n));
    expect(byName('Farrow')).toMatchObject({ kind: 'person', name: 'Odile Farrow' });
    expect(byName('Mott')?.kind).toBe('person');
    // The rank is cut off; the surname said alone is the same person; "rolls her save" is no rule.
    expect(byName('Brask')).toMatchObject({ kind: 'person', name: 'Ysolde Brask' });
    expect(found.some((f) => f.name.startsWith('Commodore'))).toBe(false);
    expect(byName('Pell Ordway')?.kind).toBe('person');
    expect(byName('Varra Prime')?.kind).toBe('place');
    expect(byName('Teshar')?.kind).toBe('place');
    expect(byName('Broken Spoke')?.kind).toBe('place');
    expect(byName('Grey Heron')?.kind).toBe('item');
  });

  it('links a player to the character they tell of in the third person', () => {
    const transcript = session(`
GM: The gate is shut. Rain falls on the square.
Lena: Nadia opens the letter.
GM: It is unsigned. Meanwhile, Corvin, what are you doing?
Theo: Corvin checks his revolver.
Lena: Nadia reads it twice.
GM: The clock strikes nine.
Theo: Corvin waits by the door.
Lena: Nadia pockets the letter and nods to Corvin.
Theo: Corvin leans on the gate.`);
    expect(inferCharacterMap(transcript).map((l) => [l.speaker, l.character])).toEqual(
      expect.arrayContaining([
        ['Lena', 'Nadia'],
        ['Theo', 'Corvin'],
      ]),
    );
  });

  it('keeps each mention at its line and time, spread over the session, and recognises the codex so far', () => {
    const [oskar] = extractCodexOffline({
      name: 'Two',
      transcript: SESSION_TWO,
      characters: CAMPAIGN_LINKS,
      known: [
        {
          kind: 'person',
          name: 'Oskar Brandt',
          aliases: ['Oskar'],
          description: '',
          sessions: 1,
          confirmed: true,
          hidden: false,
        },
      ],
    }).filter((f) => f.name === 'Oskar Brandt');
    expect(oskar?.kind).toBe('person');
    const lines = SESSION_TWO.split('\n');
    for (const m of oskar!.mentions) {
      expect(lines[m.line]).toMatch(/Oskar/);
      expect(lines[m.line]!.slice(1, 9)).toBe(new Date(m.seconds! * 1000).toISOString().slice(11, 19));
    }
  });

  it('reads a shopkeeper, a title of office, a newcomer in apposition and places named once as a narrator sets them', () => {
    const found = kinds(
      session(`
GM: Bryn, you wake up in the Copper Kettle. Reeve Tamsin Holloway wants to see you.
GM: Reeve Holloway is a stout woman with a ledger under her arm.
GM: The forge is the Hammer and Tongs, run by Edric Vane, a broad man with a soft voice.
GM: There's a tiny shop called Moss and Marrow. Pell Dunmore runs it, an old woman with a cane.
GM: The bakery is run by a gnome, Wick Tallowby, who asks if you know the Tallowbys of Fennmarsh.
GM: She studied at the college in Brightwater. Rain comes down over Ashgrove.
GM: A boatman waits there, Corrin Sedge, a thin man with a pipe. Corrin says the ford is deep.
GM: You reach the bend where the Glasswater meets the Dunn. Everyone knows the Dunn floods.
Sam: Bryn goes to the Gilt Goat and drinks with Edric Vane. Bryn drinks with Edric again.`),
    );
    expect(found).toMatchObject({
      'Tamsin Holloway': 'person',
      'Edric Vane': 'person',
      'Pell Dunmore': 'person',
      'Wick Tallowby': 'person',
      'Corrin Sedge': 'person',
      'Copper Kettle': 'place',
      'Hammer and Tongs': 'place',
      'Moss and Marrow': 'place',
      Fennmarsh: 'place',
      Brightwater: 'place',
      Ashgrove: 'place',
      Glasswater: 'place',
      'Gilt Goat': 'place',
    });
    expect(found).not.toHaveProperty('Reeve Tamsin Holloway');
    expect(found).not.toHaveProperty('Tallowbys');
  });
});

describe("a character's offline story", () => {
  const sessions = [SESSION_ONE, SESSION_TWO, SESSION_THREE].map((transcript, i) => ({
    id: `s${i + 1}`,
    name: `Session ${i + 1}`,
    date: `2026-0${i + 1}-01T00:00:00.000Z`,
    transcript,
  }));
  const entries = [
    { kind: 'person', name: 'Oskar Brandt', aliases: ['Oskar'], description: 'A captain.' },
    { kind: 'person', name: 'Ilse', aliases: ['Ilse Marr'], description: 'The archivist.' },
  ];

  it('leaves out the sessions the player missed and the scenes they were not in', () => {
    const text = characterRecapText({
      campaign: 'C',
      character: 'Kestrel',
      player: 'Priya',
      sessions,
      entries,
      secrets: [],
      characters: CAMPAIGN_LINKS,
    });
    expect(text).toContain('Left out, as Kestrel was not there: Session 3.');
    expect(text).toContain('Ilse');
    expect(text).not.toMatch(/Oskar|feather|harbour/);
    expect(text).not.toContain('/sessions/s3');
  });

  it('never quotes a line that names a secret', () => {
    const text = characterRecapText({
      campaign: 'C',
      character: 'Bryn',
      player: 'Sam',
      sessions,
      entries: [],
      secrets: [{ kind: 'person', name: 'Mother Sallow', aliases: ['Sallow'], description: '' }],
      characters: CAMPAIGN_LINKS,
    });
    expect(text).toMatch(/Oskar/);
    expect(text).not.toMatch(/Sallow/);
  });
});

describe('the offline codex leaves the rules talk of any game out of its people', () => {
  it('moves, stats, powers said as verbs, nationalities and a place noun are nobody; a voiced NPC is someone', () => {
    const found = kinds(
      session(`
GM: Your stats are Grim, Quick and Strange. The moves are on the back of the sheet.
Sam: What does Strike the Lantern use?
GM: Strike the Lantern uses Grim. Strike the Lantern is a threat. Push Through is Quick.
Sam: Is that Strike the Lantern or Push Through?
GM: That's Strike the Lantern. Roll plus Grim. Strike the Lantern, then. Grim decides it.
Sam: Grim plus two. Nine. Strike the Lantern, I guess.
GM: Bryn hits the gate. Grim is enough. Roll Push Through next time, Push Through is Quick.
Priya: Can Kestrel Unmake Ferrol? Could Ferrol have Unmaked him already?
GM: Unmake needs a touch. It's in the book. Unmake is old magic, and Unmake leaves ash.
GM: At the gate stands the warden, Jory Pask, a tall man. Old woman beside him, Danish, a nun's habit.
GM: As Jory: Nobody passes. Jory Pask folds his arms.
GM: As Jory: Go home. Pask spits on Queen Street. You walk along Queen Street to the harbour.
GM: As Pask: Last warning.`),
    );
    for (const notSomeone of [
      'Grim',
      'Quick',
      'Strange',
      'Strike',
      'Lantern',
      'Push',
      'Through',
      'Unmake',
      'Danish',
      'Street',
    ])
      expect(found[notSomeone], notSomeone).not.toBe('person');
    expect(found['Jory Pask']).toBe('person');
  });

  it('a place named by two common words after "the", and someone said of as "she" next', () => {
    const found = kinds(
      session(`
GM: You ride out through the Salt Arch at dawn. Tonight you camp at the Cold Ford.
Sam: The Cold Ford is where the ambush is.
GM: At the Cold Ford a woman waits. Her name tag says: Marta Quill. She runs the ferry.`),
    );
    expect(found).toMatchObject({ 'Cold Ford': 'place', 'Marta Quill': 'person' });
  });

  it('a condition a character is marked with or clears, and the household dog barking, are nobody', () => {
    const found = kinds(
      session(`
GM: Wren, you're still marked Frantic from last week, right?
Sam: Frantic and Sullen. Rough week for Wren.
GM: The door bursts open. Toller Voss, the harbourmaster, points at you. Toller Voss says the pier is closed.
Sam: I'm already Frantic, so I'd rather not. Mark Sullen then.
GM: Toller Voss laughs. You can clear Frantic if you comfort him.
Sam: Then I clear Frantic. Toller Voss, are you all right?
GM: Sorry. Pepper, quiet! Pepper! Sorry, she's barking at the postman.
Sam: Pepper wants to play too.
GM: Pepper, come here. Good girl. Lie down. Right, where were we? Toller Voss sighs.`),
    );
    for (const notSomeone of ['Frantic', 'Sullen', 'Pepper'])
      expect(found[notSomeone], notSomeone).not.toBe('person');
    expect(found['Toller Voss']).toBe('person');
  });

  it('links a player who answers "who are you?" with a titled name, so the party is not among the people met', () => {
    const transcript = session(`
GM: Welcome aboard. Who is the navigator?
Ana: Me. Navigator Sela Brightwing. I have a compass.
GM: And Tomas, who are you?
Tomas: Captain Oskar! I fire the cannons.
GM: And Lin?
Lin: Lady Pim. Sky Lady Pim. I have a kite.
GM: The ship sails. A gull named Harrow lands on the rail. Harrow says hello. Harrow, the old gull, wants fish.
Ana: Sela looks through her spyglass.
GM: Captain Oskar loads the cannon. Lady Pim flies her kite. Pim laughs. Oskar cheers.`);
    const map = Object.fromEntries(inferCharacterMap(transcript).map((l) => [l.speaker, l.character]));
    expect(map).toMatchObject({ Tomas: 'Oskar', Lin: 'Pim' });
    const people = extractCodexOffline({ name: 'S', transcript })
      .filter((f) => f.kind === 'person')
      .map((f) => f.name);
    expect(people.filter((n) => /Oskar|Pim/.test(n))).toEqual([]);
  });
});

import { formatTranscriptLine } from '@chronicler/contracts';
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

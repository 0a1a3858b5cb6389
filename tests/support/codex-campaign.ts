// A small campaign written for the codex tests: a game master ("GM") and two players, Sam
// playing Bryn and Priya playing Kestrel. The first session is played together; in the second the
// party splits (Bryn alone at the harbour, then Kestrel alone in the archive); the third is
// played without Priya. Its people, places and a spell are named the way tables name them.
import { formatTranscriptLine } from '@chronicler/contracts';

const lines = (script: string, step = 25): string =>
  script
    .trim()
    .split('\n')
    .map((l, i) => {
      const [speaker, ...rest] = l.split(': ');
      return formatTranscriptLine({
        seconds: 5 + i * step,
        speaker: speaker!.trim(),
        text: rest.join(': ').trim(),
      });
    })
    .join('\n');

export const CAMPAIGN_LINKS = [
  { speaker: 'Sam', character: 'Bryn' },
  { speaker: 'Priya', character: 'Kestrel' },
];

export const SESSION_ONE = lines(`
GM: You arrive in Millbrook at dusk. A woman runs up to you, her name is Hedda Vorn, she runs the mill.
Sam: Bryn tips his hat. Evening, miss. What's wrong?
GM: Hedda says her son Tobin went into the Whisperwood three nights ago and never came back.
Priya: Kestrel asks her why he went in there.
GM: Hedda says he was chasing a white stag toward the old shrine.
Sam: I cast Guiding Bolt at the lantern to light the road. Guiding Bolt, second level.
GM: Roll for it. The light flares. Hedda gasps and points north, toward the Whisperwood.
Priya: We head to the Whisperwood. Kestrel keeps her bow out.
GM: At the bridge an ogre named Grub blocks your way. Grub says the toll is one song.
Sam: Bryn sings the ballad of the drowned king.
GM: Grub weeps and waves you across. Grub says his boss, Mother Sallow, wants the silver crown.
Priya: Who is Mother Sallow?
GM: Grub will not say. You reach the shrine and find Tobin asleep beside a silver crown.
Sam: We carry Tobin back to Millbrook.
GM: Hedda cries and thanks you. She gives Kestrel her late husband's hunting horn.
`);

export const SESSION_TWO = lines(`
GM: The party splits at dawn. Bryn, you go down to the harbour in Saltmere alone.
Sam: Bryn looks for a ship heading south.
GM: A captain named Oskar Brandt offers passage for ten silver. Oskar says the Saltmere docks are watched.
Sam: Bryn pays Oskar and asks who watches the docks.
GM: Oskar whispers that Mother Sallow pays the harbour guards. He hands you a black feather.
Sam: Bryn pockets the feather and heads back.
GM: Meanwhile in Millbrook, Kestrel, you visit the archive under the chapel.
GM: The archive smells of dust and candle wax. Rows of shelves lean in the dark.
Priya: Kestrel searches the shelves for anything about the crown.
GM: The archivist, Ilse, shows you a ledger. Ilse says the crown was stolen from the Queen Under the Hill.
Priya: Kestrel asks how the archive came by the ledger.
GM: The archivist Marr taps the cover, and Marr says a courier left it here forty years ago.
Priya: Kestrel copies the page and thanks Ilse.
GM: Ilse warns you that the crown must go back before the new moon.
Priya: Kestrel runs to find Bryn at the inn.
`);

export const SESSION_THREE = lines(`
GM: Priya could not make it tonight, so Kestrel stays at the inn. Bryn, you sail with Oskar Brandt.
Sam: Bryn watches the water. Is Saltmere still in sight?
GM: You sail from Saltmere and it fades behind you. Oskar points to a black tower on the cliffs of Greyhaven.
Sam: Bryn asks Oskar who lives in the tower.
GM: Oskar says the tower belongs to Mother Sallow, and her crows watch the sea.
Sam: Bryn hides the black feather in his boot.
`);

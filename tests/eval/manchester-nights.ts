// A sixth hand-written session for the offline checks, unlike the others: a modern-day urban
// fantasy chronicle in the style of Vampire: The Masquerade, set in a real city (Manchester), run
// by a game master by first name (Priya) for four players (Callum, Jess, Marcus, Aoife) playing
// Declan, Isadora Vane, Rook and Felix. A prince, a sheriff, a harpy and a primogen; clans as
// factions (Ventrue, Toreador, Brujah, Tremere, Nosferatu-like Rook), the Anarchs and the Sabbat;
// a nightclub, a pub and a library used as Elysium; a police detective; players speaking in
// character with accents ("As Declan: ..."); disciplines named (Presence, Auspex, Dominate, Blood
// Sorcery) and a rules dispute about Dominate; a player's phone call about work; talk of a
// football derby and a pizza break. Written without reading the offline retrieval, the codex or
// the character inference, and measured once as it is: every question is untuned. Its codex
// reference (MANCHESTER_CODEX) was measured once unseen, then the codex was changed looking at
// what it got wrong (tests/eval/README.md, fourth pass): it is tuned now. Keep the questions out
// of any tuning (add a new session instead, and mark them tuned once a change is judged on them).
import type { CodexReference } from './codex-reference.ts';
import type { Question } from './questions.ts';
import { lineOf, scriptTranscript } from './script.ts';

const SCRIPT = `Priya: Right, recording's on. Everyone got a drink? Marcus, you've got your character sheet this time?
Marcus: I have. I printed it at work, so if anyone asks, it was a quarterly report.
Jess: Did anyone watch the derby on Sunday? I'm still not over it.
Callum: Don't. Three nil. At home. I turned the telly off at half time.
Aoife: City fan at the table, sorry lads. Haaland was unplayable.
Callum: We don't talk about Haaland in this house.
Priya: Can we leave the football until the break? We've got a body to deal with.
Jess: Sorry. Go on, go on.
Priya: So. Manchester by Night, chapter four. Last time, you found Ollie Pritchard, the ghoul who drives for the Prince, dead in a skip behind the Hollow Crown. Throat torn, drained. Very not Masquerade-friendly.
Aoife: And Rook hid the body in the sewers, which I still say was the right call.
Priya: It's just gone ten on a Friday. It's raining, obviously. The Northern Quarter is full of people queuing for bars.
Priya: You're all at the Hollow Crown, the nightclub on Tib Street that Benny Marsh runs for the Toreador. The bass is shaking the glasses.
Jess: Isadora is in the VIP booth upstairs, looking down at the dance floor like she owns it. Which, arguably, she does.
Callum: Declan's at the bar. And I'm doing the voice tonight, I warned you. Pint o' whatever's cold, pal, an' make it quick.
Marcus: Oh no, he's doing the accent.
Callum: Declan's from Govan. It's canon. It's on the sheet.
Priya: Benny Marsh comes over. He's a little round man in a velvet jacket, sweating even though he's been dead since 1987.
Priya: As Benny: Declan, love, you can't be drinking at my bar. You don't even drink. People notice.
Callum: As Declan: Aye, well, I like the feel of the glass, Benny.
Priya: Benny leans in. He says the Prince has called an Elysium tonight, midnight, at the John Rylands Library. All of you are expected.
Marcus: Felix straightens his tie. The Prince doesn't call Elysium on a Friday unless somebody's in trouble.
Aoife: Somebody meaning us. We found the body.
Priya: Before you go, Benny says one more thing. A copper has been round asking about Ollie. A woman. Detective Sergeant Nadia Okafor.
Jess: Uh oh. A real police officer?
Priya: Real. Greater Manchester Police, major incident team. She left a card behind the bar.
Aoife: Rook takes the card. Can I see what's on it?
Priya: DS Nadia Okafor, with a mobile number written on the back in biro.
Marcus: Sorry, sorry, that's my phone. It's my boss. I have to take this, two minutes.
Priya: Go. We'll carry on without Felix.
Jess: Isadora wants to go talk to the detective before the Prince hears about her.
Callum: Are we not going to Elysium first?
Jess: It's ten o'clock, Elysium's at midnight. We've got time.
Priya: Okay. Okafor's card says she's at the station on Longsight. But Benny says she's been drinking at the Briton's Protection most nights after her shift.
Aoife: Rook isn't going into a pub. Rook is going to follow from the outside, Obfuscated.
Priya: That's fine. The Briton's Protection is an old pub near the Bridgewater Hall. Wood panels, whisky, a fire going.
Jess: Isadora walks in. She's gorgeous, she's bored, she sits down right next to the detective.
Priya: Okafor is in her forties, a grey suit, a pint of bitter she's not really drinking, and a file open on the table that she shuts when you sit down.
Jess: In character. Posh voice. Darling, you look like you've had the most dreadful week.
Priya: As Okafor: Do I know you?
Jess: You know the Hollow Crown. I saw your card behind the bar. I knew Ollie. A little.
Priya: Okafor says: Then you'll know he hadn't been seen since Tuesday, and that his car was found burnt out in Salford.
Aoife: Burnt out? We didn't burn his car.
Callum: Someone's cleaning up after themselves.
Jess: I want to use Presence on her. Awe, so she likes me and keeps talking.
Priya: Okay, Charisma plus Presence. Rouse check first for the power.
Jess: Rouse check. A four. So I'm fine, no Hunger.
Jess: Charisma three, Presence two, five dice. Two successes, and a messy, one of my Hunger dice is a ten.
Priya: Ooh. A messy critical with Presence. She likes you a lot. Too much. She says she wants to see you again, and she writes her home address on a beer mat.
Jess: That's going to be a problem, isn't it.
Priya: Very. But she tells you this: a witness saw a man with a red scarf get into Ollie's car on Tuesday night at Piccadilly Gardens.
Marcus: Okay, I'm back. Sorry. The server in Leeds went down and apparently I'm the only one who knows the password.
Priya: You missed Jess seducing a police officer by accident.
Marcus: Classic.
Callum: Can Declan have been looking for the red scarf man? I want to go ask around the Anarchs in Ancoats.
Priya: Sure. You go to the Anarch haunt, a squat in an old mill in Ancoats. The baron there is Kez, a tiny woman with a shaved head and a baseball bat.
Callum: As Declan: Evenin', Kez. Looking for a fella wi' a red scarf.
Priya: As Kez: Red scarf? You mean Simon Thorne. He's the Sheriff's errand boy now. Went over to the Camarilla last winter.
Callum: Simon Thorne. Right. Declan cracks his knuckles.
Priya: Kez says: If you're going to hit him, do it where I can watch.
Marcus: What about Felix? Felix wants to go to the chantry first, before Elysium.
Priya: The Tremere chantry is above an old bank on King Street. Regent Ilse Varga is there, working late over a map of the city.
Marcus: Felix bows. Regent, I have a question about blood.
Priya: As Varga: You always do, Felix. What is it?
Marcus: I want to know whose blood was on Ollie. Can I use Blood Sorcery, the taste one, on the sample Rook took?
Priya: Do you have a sample?
Aoife: Rook scraped some off the skip with a knife. Rook is disgusting but thorough.
Priya: Okay. That's A Taste for Blood. Roll Resolve plus Blood Sorcery.
Marcus: Six dice. Four successes.
Priya: You taste it. It's old blood, and strong, and it carries Dominate in it, the cold, heavy feel of a Ventrue. Someone very high up fed from Ollie.
Aoife: The Prince is Ventrue, isn't she?
Priya: Prince Cordelia Ashworth. Ventrue. And so is her Sheriff, Tobias Mercer.
Marcus: So it's one of them. Felix isn't telling the Regent that.
Priya: Varga watches your face and says: Whatever you just learned, Felix, keep it behind your teeth until I say.
Callum: Can I just check something about Dominate, while we're on it. Can Mercer have Dominated Ollie over the phone?
Priya: No. Dominate needs eye contact. It's in the book, page two something.
Callum: But there's that one in the new book, the one where you can do it through a recording.
Aoife: That's Mesmerize through a screen and it's a house rule from that podcast, it's not in the core book.
Callum: It's in the companion! I swear it's in the companion.
Priya: Okay, rules call. In my game, Dominate needs eye contact, in person. If you find the page I'll look at it next week.
Callum: Fine. I'm finding the page.
Jess: He's not finding the page.
Priya: Midnight. Elysium. The John Rylands Library, the reading room. Candles, stone, the Kindred of Manchester in their best clothes.
Priya: On a carved chair at the end of the room is Prince Cordelia Ashworth. Fifties when she died, silver hair, a pearl necklace, a face like a headmistress.
Jess: Isadora curtsies. Deeply. She's a suck-up.
Priya: Beside her stands the Sheriff, Tobias Mercer, huge, quiet, in a long black coat. And beside him a thin man in a red scarf.
Callum: That's him. That's Thorne.
Priya: The Harpy, Lucien Grey, is in the gallery, watching everyone and writing in a little notebook.
Marcus: Felix stays in the back. Near the exit.
Priya: The Prince speaks. As Ashworth: Someone has killed my driver and left him like rubbish in a bin. The Masquerade is at risk, and a police officer is asking questions.
Priya: As Ashworth: I want the killer brought to me before the next full moon. The coterie who found him will find his killer.
Aoife: Oh, that's us. That's a trap, that's definitely a trap.
Priya: The Prince looks straight at Isadora. As Ashworth: And you, Miss Vane, will make sure the detective forgets.
Jess: Isadora says: Of course, my Prince. Inside, she is screaming.
Priya: Then the Brujah Primogen, Sister Margaret Doyle, stands up in the front row. Old woman, Irish, an actual nun's habit.
Priya: As Doyle: With respect, Prince, my Declan found that boy. My Declan'll not be blamed for him.
Callum: Declan nods at Sister Margaret. Cheers, Mags.
Priya: She glares at you. Nobody calls her Mags in Elysium.
Callum: As Declan: Sorry, Sister.
Aoife: Can Rook use Auspex on Thorne while everyone's watching the Prince? I want to see his aura.
Priya: Sure. Rouse check, then Intelligence plus Auspex.
Aoife: Rouse check, a three. Hunger goes up to two. Five dice. Three successes.
Priya: Thorne's aura is pale with fear and streaked with black. Black means he's committed diablerie, or he's been feeding on someone who did.
Marcus: Hang on, is that right? I thought black veins was diablerie only.
Priya: In my game, black streaks show diablerie, and he's scared. That's all you get.
Aoife: Rook whispers to Declan: the scarf lad's got black in him. He's been eating vampires.
Callum: So Thorne drained Ollie, and someone Ventrue fed from Ollie first. Two different people?
Jess: Or Thorne drank from Mercer. Gross.
Priya: Elysium ends. The Kindred drift off. Lucien Grey catches Isadora at the door.
Priya: As Grey: Miss Vane, a word of advice from a friend. The Sheriff has asked for the keys to the Castlefield warehouse tonight. I wonder why.
Jess: Isadora gives him a kiss on the cheek. Lucien, you're a darling.
Priya: Okay, let's take ten. Food's here, I can hear the doorbell.
Callum: Pizza! Finally.
Marcus: Did you get the one with the chillies?
Priya: I got the one with the chillies. Callum, you owe me eight quid.
Jess: So who's going to Old Trafford next month? My brother's got a spare ticket for the United game.
Aoife: I wouldn't be seen dead there. Well. Declan would be seen dead anywhere.
Callum: Found it! Page one four seven, the companion. It's Mesmerize through a video call, not a phone.
Priya: Then it's a video call, not a phone, and Ollie was on a phone. Still no. Right, we're back. Castlefield.
Priya: It's two in the morning. The old warehouse sits on the canal under the railway arches in Castlefield. A Jaguar is parked outside. The Sheriff's car.
Aoife: Rook goes in first, Obfuscated, through a drain.
Priya: Roll Dexterity plus Stealth, with Obfuscate added.
Aoife: Seven dice. Five successes.
Priya: You're in. Inside, there's a cage. And in the cage is a young man, chained, human, barely conscious. He's wearing a Manchester Met hoodie. A student.
Jess: Oh no. They're keeping a blood doll.
Priya: Simon Thorne is sitting on a crate next to the cage, feeding from the student's wrist. No sign of Mercer.
Callum: Right, Declan's going in the front door.
Marcus: Wait, wait. Felix wants to talk to Thorne first. If he's scared, we can use it.
Callum: Fine. Thirty seconds of talking, then I'm kicking the door in.
Marcus: Felix walks in, hands up. Simon. You look terrible.
Priya: As Thorne: Stay back! He sent you, didn't he? Mercer sent you to clean me up like he cleaned up Ollie.
Marcus: No. The Prince sent us. Tell us what happened and maybe you walk away.
Priya: Roll Manipulation plus Persuasion. He's terrified, so difficulty three.
Marcus: Six dice. Three successes. Exactly three.
Priya: He breaks. As Thorne: Mercer made me. He made Ollie drive him to Piccadilly, then fed on him till he dropped. Then he told me to finish it and get rid of the car.
Jess: So Mercer killed the Prince's own driver. Why?
Priya: As Thorne: Ollie saw something. The Sheriff meeting someone from the Sabbat at the Hollow Crown. Ollie was going to tell the Prince.
Aoife: The Sabbat. In Manchester. Oh, that's bad.
Priya: And then the door at the back opens. The Sheriff, Tobias Mercer, walks in. He's not surprised to see you.
Callum: Declan doesn't wait. Declan goes for him.
Priya: Initiative. Actually, it's a conflict, let's do it properly. Declan, Strength plus Brawl, with Potence.
Callum: Rouse check for Potence. A one. Hunger three. Ugh. Nine dice. Four successes.
Priya: Mercer has five. He catches your fist. As Mercer: You're Brujah, lad. You were always going to do this.
Jess: Isadora uses Presence, Dread Gaze, on Thorne, to make him run. I want him out of here as a witness.
Priya: Hang on, Dread Gaze on the witness? Why?
Jess: So he runs to the Prince. Straight to her haven. He's our evidence.
Priya: Okay, I like that. Roll it. Charisma plus Presence.
Jess: Five dice. Three successes.
Priya: Thorne bolts out the back door screaming, towards the canal towpath. Mercer turns to go after him.
Marcus: Felix uses Blood Sorcery on the door. Corrosive Vitae. I seal it with his own blood. Well, mine.
Priya: That's not quite how that works, but I'll allow it for the door. Roll.
Marcus: Four successes.
Priya: The lock melts shut. Mercer is stuck in here with you. He looks at the four of you and smiles.
Priya: As Mercer: Fine. Let's talk like civilised people. What do you want?
Aoife: Rook frees the student while everyone's talking. Picks the lock on the cage.
Priya: Dexterity plus Larceny.
Aoife: Six dice. Two successes. Just enough.
Priya: The student's name is on his lanyard: Danny Kowalski. He's alive. Just.
Jess: We take Danny to the hospital. Manchester Royal Infirmary, the A and E. Leave him at the doors.
Callum: And Mercer?
Priya: Mercer offers you a deal. He'll leave the city. He'll give you the name of his Sabbat contact. You tell the Prince Thorne did it.
Marcus: Felix says: What's the name?
Priya: As Mercer: Valentina Cruz. She runs a tattoo parlour on Oldham Street. The Sabbat's been in the Northern Quarter for a year.
Callum: I don't like it. He killed Ollie.
Aoife: We don't have to decide tonight. We're out of night.
Priya: It's five in the morning. The sun comes up at seven. That's where we stop.
Jess: And Isadora still has Okafor's address on a beer mat.
Priya: She does. Next session, the detective comes looking for Isadora. Everyone mark experience, and we're on again on the twelfth.
Marcus: Can't do the twelfth. I've got a work do in Leeds.
Priya: Nineteenth then. Callum, bring the companion book.
Callum: I'm bringing it. Page one four seven. I'll have it tabbed.`;

/** The script as a stored transcript: about a minute apart, a few seconds per line. */
export function manchesterTranscript(): { transcript: string; times: string[] } {
  return scriptTranscript(SCRIPT);
}

const at = (text: string) => lineOf(SCRIPT, text);

/** Questions on the Manchester chronicle, each with the 0-based line that answers it; none tuned. */
export const MANCHESTER_QUESTIONS: Pick<Question, 'question' | 'turn' | 'tuned'>[] = [
  {
    question: "Where was Ollie's car found?",
    turn: at('his car was found burnt out in Salford'),
    tuned: false,
  },
  { question: 'Who is the man in the red scarf?', turn: at('You mean Simon Thorne'), tuned: false },
  { question: 'Why was Marcus on the phone?', turn: at('The server in Leeds went down'), tuned: false },
  {
    question: 'Whose blood did Felix taste on Ollie?',
    turn: at('the cold, heavy feel of a Ventrue'),
    tuned: false,
  },
  { question: 'Can Dominate be used over the phone?', turn: at('rules call'), tuned: false },
  { question: 'Why did the Sheriff want Ollie dead?', turn: at('Ollie saw something'), tuned: false },
  {
    question: "Who is Mercer's Sabbat contact?",
    turn: at('Valentina Cruz. She runs a tattoo parlour'),
    tuned: false,
  },
  { question: 'What was the score in the derby?', turn: at('Three nil. At home.'), tuned: false },
];

/** What a note-taker would write down from the script (see codex-reference.ts for the fields). */
export const MANCHESTER_CODEX: CodexReference = {
  episode: 'manchester-nights',
  tuned: true,
  party: [['Declan'], ['Isadora Vane', 'Isadora', 'Miss Vane'], ['Rook'], ['Felix']],
  npcs: [
    ['Ollie Pritchard', 'Ollie'],
    ['Benny Marsh', 'Benny'],
    ['Detective Sergeant Nadia Okafor', 'DS Nadia Okafor', 'Nadia Okafor', 'Okafor'],
    ['Kez'],
    ['Simon Thorne', 'Thorne'],
    ['Regent Ilse Varga', 'Ilse Varga', 'Varga'],
    ['Prince Cordelia Ashworth', 'Cordelia Ashworth', 'Ashworth'],
    ['Sheriff Tobias Mercer', 'Tobias Mercer', 'Mercer'],
    ['Lucien Grey', 'Lucien'],
    ['Sister Margaret Doyle', 'Margaret Doyle', 'Doyle', 'Mags'],
    ['Danny Kowalski', 'Danny'],
    ['Valentina Cruz', 'Valentina'],
  ],
  places: [
    ['Manchester'],
    ['Northern Quarter'],
    ['Hollow Crown', 'The Hollow Crown'],
    ['Tib Street'],
    ['John Rylands Library', 'John Rylands'],
    ['Longsight'],
    ["Briton's Protection"],
    ['Bridgewater Hall'],
    ['Salford'],
    ['Piccadilly Gardens', 'Piccadilly'],
    ['Ancoats'],
    ['King Street'],
    ['Castlefield'],
    ['Manchester Royal Infirmary'],
    ['Oldham Street'],
  ],
  notPeople: [
    // Clans, sects, titles and the setting's words.
    'Ventrue',
    'Toreador',
    'Brujah',
    'Tremere',
    'Nosferatu',
    'Anarchs',
    'Anarch',
    'Camarilla',
    'Sabbat',
    'Kindred',
    'Masquerade',
    'Elysium',
    'Primogen',
    'Harpy',
    'Greater Manchester Police',
    // Disciplines, powers, traits and rules.
    'Presence',
    'Awe',
    'Dread Gaze',
    'Obfuscate',
    'Auspex',
    'Dominate',
    'Mesmerize',
    'Potence',
    'Blood Sorcery',
    'A Taste for Blood',
    'Corrosive Vitae',
    'Rouse',
    'Hunger',
    'Blood Potency',
    'Humanity',
    'Charisma',
    'Resolve',
    'Intelligence',
    'Manipulation',
    'Persuasion',
    'Dexterity',
    'Stealth',
    'Larceny',
    'Strength',
    'Brawl',
    // A character's home town (backstory), a car, a university; a nationality ("Old woman,
    // Irish"), judged by hand after the first run printed it unjudged.
    'Govan',
    'Irish',
    'Jaguar',
    'Manchester Met',
    // Out of the game: football (the clubs, a player, a ground), a player's work, the table.
    'City',
    'United',
    'Haaland',
    'Old Trafford',
    'Leeds',
    'Priya',
    'Callum',
    'Jess',
    'Marcus',
    'Aoife',
  ],
  alsoPeople: [],
};

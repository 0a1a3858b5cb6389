// A second hand-written session for the offline checks, unlike the home game and unlike D&D: a
// Call of Cthulhu-style investigation in 1920s Boston, about an hour. A keeper by first name
// (Dana) and three players (Marcus, Lena, Theo) playing investigators (Professor Whitcombe, Nora,
// Frankie); skill rolls ("Spot Hidden", "Library Use", Sanity), a spell (Shrivelling), a phone
// call, pizza, a podcast and its sponsor, and real people named in passing (Houdini, Lovecraft).
// Written after the offline retrieval and codex were last changed, without reading either, and
// measured once as it is: every question is untuned, and so is its codex reference. Keep it out
// of any tuning (add a new session instead, and mark this one tuned once a change is judged on it).
import type { Question } from './questions.ts';
import { lineOf, scriptTranscript } from './script.ts';

const SCRIPT = `Dana: Okay, phones down, we're starting. Boston, October 1925. It's raining on Beacon Hill.
Theo: Wait, before we start, did anyone listen to that podcast I sent? The one about Houdini and the Boston medium.
Marcus: The Margery one? Yeah, Houdini spent a whole summer trying to catch her cheating.
Theo: Mina Crandon. Wild story. The episode was sponsored by HelloFresh though, like three ad reads.
Lena: Every podcast is sponsored by HelloFresh.
Dana: Okay, save it for the break. So. Each of you got a letter from Mrs. Adelaide Pickering, a widow who lives on Louisburg Square.
Lena: Nora opens hers at her desk at the Globe.
Dana: The letter says her brother, Doctor Silas Hartwell, has not been seen for eleven days, and the police won't help.
Marcus: Whitcombe knew Hartwell, right? We were at Harvard together.
Dana: You did. He taught folklore, you taught ancient languages. You haven't spoken in two years, since he was dismissed.
Marcus: Dismissed for what?
Dana: Rumours. Something about rare books going missing from the Widener Library.
Theo: Frankie just shows up because she's paying. Fifteen dollars a day plus expenses.
Dana: Mrs. Pickering receives you in a parlour full of ticking clocks. She's maybe sixty, black dress, very sharp eyes.
Lena: Nora asks when she last saw him.
Dana: She says Silas came to dinner on the night of the ninth, very pale, and kept asking if she could hear a humming under the floor.
Theo: Humming. Great. I hate this already.
Lena: Can I make a Psychology roll on her? Is she hiding something?
Dana: Sure, roll Psychology.
Lena: Thirty-one, and my skill is fifty-five, so that's a success.
Dana: She's not lying, but she's frightened of something in the house itself. She keeps glancing at the cellar door.
Marcus: Whitcombe asks politely if we may see the cellar.
Dana: She gives you the key but refuses to go down herself. Her housekeeper, Bridget Malloy, brings you a lamp.
Theo: Frankie goes first, hand on his revolver.
Dana: The cellar is damp. Coal bin, shelves of preserves, a workbench. Everyone make a Spot Hidden roll.
Theo: Failed. Eighty-two.
Lena: Fifty, also failed.
Marcus: Twelve! That's a hard success, I think.
Dana: Professor, behind the coal bin one brick is loose. Behind it is a leather notebook wrapped in oilcloth.
Marcus: I open it very carefully.
Dana: It's Hartwell's handwriting. Dates, addresses, and over and over the same phrase in Latin: audit qui tacet.
Marcus: He who is silent hears. Whitcombe translates it out loud.
Lena: That is so creepy.
Dana: The last entry says: Copp's Hill, Thursday, Brother Jonas keeps the key to the lower vault.
Theo: Who's Brother Jonas?
Dana: You don't know. Yet.
Lena: Sorry, sorry, my phone, it's my sister. Hold on one second.
Lena: Hey Jess. No, I'm at Marcus's, we're playing. Yes, I fed the cat. Okay, love you, bye.
Theo: Tell Jess hi.
Dana: Is the pizza coming? I'm starving.
Marcus: Tony's says forty minutes. I got one pepperoni and one mushroom.
Theo: No pineapple? Coward.
Marcus: Fun fact, Lovecraft set Pickman's Model right here, in the North End. Copp's Hill and everything.
Theo: Of course he did. The man hated everything except cats and tunnels.
Dana: Back to 1925, please. The next morning. Where do you go?
Lena: Nora wants to go to the Boston Athenaeum and look up Copp's Hill and anything on Hartwell.
Dana: The librarian is Miss Harriet Lowe, tiny, fierce, grey cardigan. She knows Hartwell, he held a reader's card until spring.
Lena: Library Use!
Dana: Go ahead.
Lena: Forty-four against seventy. Success.
Dana: You find an 1887 pamphlet about Copp's Hill Burying Ground. It mentions a sealed crypt under the hill, the Mather vault, walled up after a disturbance among the poor of the North End.
Marcus: The Mather vault. Like Cotton Mather, the witch trials guy?
Dana: The pamphlet doesn't say. Miss Lowe also mentions, very quietly, that Hartwell once asked for a book that the Athenaeum does not lend: the Liber Susurrorum.
Marcus: The Book of Whispers.
Dana: She says it was signed out in August by a Mr. Jonas Abernathy of Charlestown, and never returned.
Theo: Jonas! That's our guy. Brother Jonas.
Dana: Meanwhile, Frankie, what are you doing?
Theo: Frankie goes to see his old buddy at the police station, Sergeant Patrick Doyle, down on Hanover Street.
Dana: Doyle is big, red-faced, chewing a cigar. He says the Hartwell case is closed: the professor ran off to Montreal to dodge gambling debts.
Theo: I slip him five bucks. What do the files really say?
Dana: Make a Persuade roll. Or, since you're bribing him, Credit Rating.
Theo: Can I use Persuade but get a bonus die for the money?
Dana: Yeah, I'll give you a bonus die.
Theo: Nineteen, with the bonus die. Success.
Dana: Doyle admits that three other people vanished near Copp's Hill since August, all of them poor, all of them heard a humming. The captain told him to drop it.
Theo: Frankie writes down the names.
Dana: Ruth Connelly, a laundress. Sal Benedetto, a fishmonger. And a newsboy, Mickey Fitz.
Marcus: Pizza! Hold on, door.
Theo: Is it Kevin? Kevin is the best delivery guy, he always brings extra garlic sauce.
Lena: Marcus, grab napkins too.
Dana: Okay, eat, but listen. Thursday night. Copp's Hill. Are you going?
Marcus: Whitcombe brings the notebook and an electric torch.
Lena: Nora brings her camera and a flask.
Theo: Frankie brings the revolver and a crowbar.
Dana: The burying ground is dark, fog rolling off the harbour. Across the water you can see the lights of the Charlestown Navy Yard.
Dana: Near the Mather tomb there are six people in grey robes, humming. One holds a lantern. He's tall, with a grey beard.
Theo: Is that Jonas?
Dana: Roll Spot Hidden, Frankie.
Theo: Twenty-two. Yes!
Dana: In the lantern light you see a ring on his hand with a silver ear on it, the same sign that is drawn all over Hartwell's notebook.
Marcus: A silver ear. Something that listens.
Dana: The bearded man opens the vault door with an iron key and they all go down. The humming gets louder. Everyone, Sanity roll.
Lena: Sixty-three, my Sanity is fifty-eight. Failed.
Dana: Lose one d six.
Lena: Four. Nora is down to fifty-four.
Marcus: Passed, forty.
Theo: Passed. Frankie has seen worse in the Argonne.
Dana: Do you follow them down?
Theo: Obviously. Stealth roll?
Dana: Everyone roll Stealth. If one of you fails, they hear you.
Lena: Thirty, success.
Marcus: Sixty-eight. My Stealth is twenty. Failed.
Dana: Professor, your shoe scrapes the stone stair. The humming stops.
Marcus: Oh no.
Dana: The tunnel opens into a round chamber lined with old brick. Chained to a pillar, gaunt, with his mouth sewn shut, is Silas Hartwell.
Lena: Oh god. Is he alive?
Dana: His eyes move. He sees you. Behind the pillar, in the dark, is a shape like a huge pale ear made of folded flesh. Sanity roll, one d ten on a failure.
Theo: Failed. Ninety-one.
Dana: Roll the d ten.
Theo: Eight. That's temporary insanity, right? Five or more?
Dana: Five or more in one go, so you make an Intelligence roll. If you pass, you understand what you saw, and you go temporarily insane.
Theo: I pass. Ugh. Frankie understands.
Dana: Frankie sees his whole platoon in the mud of France, and he hears them calling him. For one d ten rounds he fires at shadows.
Theo: Frankie unloads the revolver into the dark, screaming.
Dana: The robed man, Jonas, raises his hand and says a word. He casts Shrivelling at Nora.
Lena: What does Shrivelling do? Is that hit points?
Dana: It costs him magic points and you lose hit points, one d six per point he spends. He spends three.
Lena: Hold on, does my armour count? I have a thick coat.
Dana: No, a coat does nothing against a spell. Roll three d six for damage.
Lena: Eleven. Nora has eleven hit points. She's at zero?
Dana: She's at zero and dying. Make a Constitution roll each round or she dies.
Marcus: Whitcombe grabs the chalk from his pocket. I draw the Elder Sign from the notebook on the floor between us and the thing.
Dana: Roll Cthulhu Mythos. You only have five points.
Marcus: Three! I made it!
Dana: The sign flares, cold blue. The huge pale ear folds in on itself and the humming becomes a shriek. The robed people run.
Theo: Frankie comes to his senses and grabs Hartwell's chains with the crowbar.
Dana: Roll Strength.
Theo: Forty, success.
Dana: The chain snaps. Jonas flees up a side tunnel toward the harbour with the Liber Susurrorum under his arm.
Lena: Can Nora make her Constitution roll? Fifteen. Yes, stable.
Marcus: First Aid on Nora. Fifty-five, success. She's at one hit point.
Dana: You drag Nora and Hartwell up the stairs and out into the fog. Hartwell pulls the stitches out of his mouth and says one thing.
Marcus: What does he say?
Dana: He says: the Pale Listener hears every word spoken in Boston, and Jonas means to open its ear at the new year.
Theo: New year. So we have about ten weeks.
Dana: You take Hartwell and Nora to Massachusetts General Hospital. Doctors ask questions you can't answer.
Lena: Nora calls the Globe from the hospital payphone and tells her editor, Mr. Walsh, she has a story.
Dana: Walsh says no one will print a story about a giant ear under Copp's Hill. Write about the missing laundress instead.
Marcus: Whitcombe keeps Hartwell's notebook. Nobody else touches it.
Dana: Two days later Mrs. Pickering pays you. Three hundred dollars, and she gives the professor her brother's pocket watch, which has stopped at ten past three.
Theo: Creepy watch. Love it.
Dana: And that's where we stop tonight. Everyone mark your skill checks for improvement.
Lena: I got Library Use and Psychology checked.
Marcus: Same time next Friday?
Dana: Same time. And Theo, send me that podcast.`;

/** The script as a stored transcript: about a minute apart, a few seconds per line. */
export function bostonTranscript(): { transcript: string; times: string[] } {
  return scriptTranscript(SCRIPT);
}

const at = (text: string) => lineOf(SCRIPT, text);

/** Questions on the Boston session, each with the 0-based line that answers it; none tuned. */
export const BOSTON_QUESTIONS: Pick<Question, 'question' | 'turn' | 'tuned'>[] = [
  {
    question: 'How long has Silas Hartwell been missing?',
    turn: at('not been seen for eleven days'),
    tuned: false,
  },
  {
    question: 'What did Hartwell keep asking his sister about at dinner?',
    turn: at('humming under the floor'),
    tuned: false,
  },
  { question: 'Where was the notebook hidden?', turn: at('one brick is loose'), tuned: false },
  { question: 'Who signed out the Liber Susurrorum?', turn: at('signed out in August'), tuned: false },
  { question: 'Why did the police close the Hartwell case?', turn: at('gambling debts'), tuned: false },
  { question: "What sign was on the robed man's ring?", turn: at('a ring on his hand'), tuned: false },
  { question: 'What does the Pale Listener hear?', turn: at('hears every word spoken'), tuned: false },
  { question: 'What did Mrs. Pickering give the professor?', turn: at('pocket watch'), tuned: false },
];

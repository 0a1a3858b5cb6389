// A tenth hand-written session for the offline checks, unlike the others: a Gumshoe-style noir
// mystery in Los Angeles, 1947, run by Dana for Theo, Priya and Sam, who play Jack Malone (a
// private eye), Lou Castellano (a newspaper reporter) and Vera Kessler (a former studio nurse).
// Investigative abilities with capitalised names spent from pools (Interrogation, Streetwise, Cop
// Talk, Photography), a Stability test; a nightclub on the Sunset Strip, a police lieutenant, a
// missing starlet, a studio boss and his fixer, a bartender, a dead photographer; a player's baby
// monitor going off, a real film noir (Double Indemnity) and a radio show named in passing.
// Written without reading the offline retrieval, the codex or the character inference, and
// measured once as it is: every question is untuned, and so is its codex reference
// (VELVET_ALIBI_CODEX). Keep it out of any tuning (add a new session instead, and mark this one
// tuned once a change is judged on it).
import type { CodexReference } from './codex-reference.ts';
import type { Question } from './questions.ts';
import { lineOf, scriptTranscript } from './script.ts';

const SCRIPT = `Dana: Okay, everybody got their sheets? Theo, you've got the pool tracker?
Theo: Got it. Interrogation three, Streetwise two, Cop Talk one. Stability is at eight.
Priya: I'm still at full on everything because I didn't spend a single point last time, which I regret.
Sam: Sorry, give me one sec, I'm putting the monitor where I can see it. Okay. Go.
Dana: Right. Los Angeles, March 1947. It's been raining for three days, which never happens, and everybody in the city is in a bad mood about it.
Dana: Quick recap. Evelyn Marsh, twenty-three, contract player at Monarch Pictures, hasn't been seen since Saturday night. Her roommate, a girl named Peggy Ryan, hired Jack to find her because the studio won't call the police.
Theo: And the studio won't call the police because Evelyn is supposed to start shooting on Monday and Harold Brandt doesn't want the papers to know.
Dana: Exactly. Harold Brandt runs Monarch. Last session he had you brought up to his office on the lot and told you, very politely, to drop it.
Priya: And Lou, being a reporter for the Herald-Express, took that personally.
Sam: And Vera got a look at Evelyn's dressing room on the lot before the guard threw her out. Lipstick on the mirror, a phone number, and a matchbook.
Dana: A matchbook from the Blue Orchid. You all saw the note Vera made.
Dana: So where do you want to start tonight?
Theo: The last place anyone saw her. The nightclub. What was it called again?
Dana: The Blue Orchid. It's on the Sunset Strip, just past the Garden of Allah. Red awning, a doorman in a coat that costs more than your car.
Theo: Jack goes. Lou comes with me. Vera, you want to come?
Sam: Vera goes to the hospital first. She still knows the night nurses at Queen of Angels, and I want to check if a young woman came in Saturday without a name.
Dana: Good, we'll split it. Jack and Lou first. It's ten at night. The band is playing something slow, there's smoke everywhere, and behind the bar is a thin man with slicked hair polishing the same glass over and over.
Dana: As the bartender: What'll it be, gentlemen?
Theo: Two rye. And then Jack puts a photo of Evelyn on the bar. I'm using Streetwise. I want to know how this guy wants to be talked to.
Dana: You don't need to spend for the basic clue. He's Eddie Sato, he's worked here six years, and he's scared of somebody. He keeps glancing at the door to the back office.
Theo: Then I'll spend a point of Streetwise for more.
Dana: Okay, one Streetwise. You know the Blue Orchid is owned on paper by a man named Nick Varga, but everybody on the Strip knows the money behind it comes from the studio crowd. Varga keeps a back room for the people who don't want to be seen.
Priya: Lou leans in. Eddie, I'm from the Herald-Express. If something happened to that girl, it's going to be in the paper either way. You can be the guy who helped or the guy who didn't.
Dana: Is that Intimidation or Reassurance?
Priya: Reassurance. I'm being nice. Mostly.
Dana: Eddie puts the glass down. He says: She was here Saturday. She came in with a man from the studio, big shoulders, broken nose. They went in the back. She came out alone about one in the morning, crying, and she left her coat.
Theo: Broken nose. That's Brandt's guy, right? The fixer?
Dana: You tell me. Does Jack know him?
Theo: Cop Talk? Jack used to be on the force.
Dana: Spend it?
Theo: Yeah, one Cop Talk.
Dana: You remember the name from your days at the Hollenbeck station. Tommy Kovac. Ex-boxer, ex-cop, thrown off the force in '41, now he does whatever Harold Brandt needs done quietly.
Priya: Great. So the studio boss's enforcer walked her into the back room and she came out crying.
Dana: Eddie says one more thing, very quietly. She asked me for a nickel for the phone. She called somebody and said, I'm going to the pier, bring the pictures.
Priya: The pier. Santa Monica?
Dana: That's what he assumes. He doesn't know who she called.
Sam: Okay, hold on, hold on. Sorry. The baby monitor just went off. She's doing the whimper thing. Give me two minutes.
Dana: Go, go. We'll pause.
Theo: While we wait, did anyone watch Double Indemnity like we said we would?
Priya: I did! I watched it on Sunday. Barbara Stanwyck is terrifying.
Theo: That's the vibe I want for Evelyn, honestly. Like, we don't know if she's a victim or if she's running a game.
Dana: No comment.
Priya: That's a yes.
Sam: Okay, I'm back. False alarm, she found her pacifier. Where are we?
Dana: Jack and Lou just learned Evelyn called someone Saturday night and said she was going to the pier with pictures. Now, Vera, Queen of Angels.
Sam: Vera goes in the back entrance, finds the night nurse she used to work with. Her name was, let's say, Rosa.
Dana: Sure. Rosa Delgado. She hugs you, she's happy to see you, and she asks if you're still working for the studio.
Sam: Vera says no, she quit after what happened with the last girl. That's my backstory, right? I quit because Monarch made a pregnancy disappear.
Dana: That's your backstory. Rosa's face changes when you say Monarch.
Sam: I use Medicine to read the admission book, and Interrogation on Rosa if I need to.
Dana: The book's clean. No Jane Doe on Saturday. But Rosa says, off the record, that a doctor named Doctor Albert Fenn came in Sunday morning asking the same thing. He's the studio doctor for Monarch.
Sam: So the studio is also looking for her. They don't know where she is either.
Dana: That's what it looks like.
Priya: Ooh. So Brandt didn't disappear her. She ran from him.
Sam: Vera asks Rosa to call her if Doctor Fenn comes back. She gives her the number of the boarding house on Bunker Hill.
Dana: Rosa says she will. And she says, Vera, be careful, that man carries a gun in his bag.
Dana: Let's go back to the club. Jack, Lou, the door to the back office opens and a man in a gray suit comes out. Heavy, gold ring, cigar. Nick Varga. He's looking right at you.
Theo: Jack doesn't move. Evening, Mister Varga.
Dana: As Varga: You boys lost? This is a private club. Eddie, who let these two in?
Priya: Lou says, we're fans of the music.
Dana: Varga laughs. He says: The girl's gone, Malone. Whatever she took from that room, it isn't yours and it isn't mine. Go home.
Theo: Whatever she took. I want to use Interrogation on that. What did she take?
Dana: Spend one Interrogation.
Theo: Done. Two left.
Dana: Varga doesn't answer directly, but the clue is this: Evelyn took an envelope of photographs from the back office safe. Photographs of someone very important at a party at Varga's house in Laurel Canyon. That's what Kovac was sent to get back.
Priya: Blackmail. She's blackmailing the studio.
Theo: Or someone's blackmailing her and she stole the pictures back.
Dana: Then Varga snaps his fingers and two men in coats start walking toward your table.
Theo: Time to leave. We go out through the kitchen.
Dana: Okay, Athletics test for both of you, difficulty four.
Theo: I'll spend one Athletics. Rolled a three, plus one, four. Made it.
Priya: I rolled a five. Made it without spending.
Dana: You're out in the alley behind the Blue Orchid, rain coming down, and your car is two blocks away. Let's go to the pier.
Sam: Vera meets them there. I drive my own car.
Dana: Santa Monica Pier, midnight. The carousel is closed, the bait shop is closed. At the end of the pier, under the last lamp, there's a man lying face down on the boards.
Priya: Oh no.
Dana: He's dead. Shot twice. There's a camera strap around his neck but no camera. Lou, you recognize him.
Priya: Do I? Photography?
Dana: You don't need to spend. It's Benny Shapiro, a freelance photographer who sells pictures to the Herald-Express and the scandal sheets. He's shot parties in Laurel Canyon for years.
Priya: So Benny took the pictures. Evelyn called Benny.
Dana: And now I need everyone to make a Stability test. Difficulty four. It's a dead man in the rain and somebody you might know.
Sam: Vera's a nurse, she's seen bodies. I rolled a six. Fine.
Theo: I rolled a two. I'll spend two Stability. Four. Made it, but I'm down to six.
Priya: I rolled a one. Ugh. Can I spend Stability?
Dana: You can spend up to whatever you want.
Priya: Then I'll spend three. Four. Lou is fine. Lou is sweating but fine.
Priya: Lou takes a picture of the body before anyone else gets here. Old reporter habit.
Dana: Good call. That's Photography, and you get the angle of the shots: whoever did this was standing close. Benny knew them.
Dana: Headlights at the front of the pier. A police car. And a man in a long coat gets out. Lieutenant Frank Doyle, LAPD homicide. He knows Jack.
Theo: Of course he does. Jack and Doyle were partners.
Dana: As Doyle: Jack. Every time I find a body in this town, you're standing next to it. You want to tell me why?
Theo: Jack says, I'm looking for a girl, Frank. Evelyn Marsh. The studio doesn't want you to know she's missing.
Dana: Doyle looks at the body, looks at you. He says: Brandt called the Chief this afternoon. I was told Evelyn Marsh is visiting her mother in Bakersfield. So you're telling me the Chief is lying.
Priya: Lou says, we're telling you somebody's lying, Lieutenant. Probably the man with the broken nose.
Dana: Doyle says: Kovac. Then he says, quieter, You've got till morning before this is my case, Jack. After that, stay out of my way.
Sam: Does Vera see anything on the body? I want to use Forensics.
Dana: You find a pawn ticket in his shoe. Pawned a Speed Graphic camera this afternoon at a shop on Main Street in Venice. Name on the ticket: E. Marsh.
Theo: She has the camera. She's alive.
Priya: Venice. That's a long drive in the rain at two in the morning.
Theo: The pawn shop won't be open till nine anyway. Jack drives everybody home and sits outside Peggy's place in the car till dawn.
Dana: And that's where we stop tonight. Really good session.
Priya: Wait, we stop there? That's cruel.
Dana: That's noir. Next week is the pawn shop.
Sam: Next Thursday, same time? I'll try to get him to take the baby monitor duty.
Theo: Same time. And Jack is writing down Evelyn, Benny, Kovac, Varga in his notebook with a big question mark.`;

/** The script as a stored transcript: about a minute apart, a few seconds per line. */
export function velvetAlibiTranscript(): { transcript: string; times: string[] } {
  return scriptTranscript(SCRIPT);
}

const at = (text: string) => lineOf(SCRIPT, text);

/** Questions on the Velvet Alibi session, each with the 0-based line that answers it; none tuned. */
export const VELVET_ALIBI_QUESTIONS: Pick<Question, 'question' | 'turn' | 'tuned'>[] = [
  {
    question: 'Who owns the Blue Orchid?',
    turn: at('owned on paper by a man named Nick Varga'),
    tuned: false,
  },
  {
    question: 'Where did Evelyn say she was going after the club?',
    turn: at("I'm going to the pier, bring the pictures"),
    tuned: false,
  },
  {
    question: "What was found in the dead man's shoe?",
    turn: at('You find a pawn ticket in his shoe'),
    tuned: false,
  },
  {
    question: 'Who is Tommy Kovac?',
    turn: at('You remember the name from your days at the Hollenbeck station'),
    tuned: false,
  },
  { question: 'Why did Sam pause the game?', turn: at('The baby monitor just went off'), tuned: false },
  {
    question: 'What did Evelyn take from the back office safe?',
    turn: at('Evelyn took an envelope of photographs'),
    tuned: false,
  },
];

/** What a note-taker would write down from the script (see codex-reference.ts for the fields). */
export const VELVET_ALIBI_CODEX: CodexReference = {
  episode: 'velvet-alibi',
  tuned: false,
  party: [
    ['Jack Malone', 'Jack', 'Malone'],
    ['Lou Castellano', 'Lou'],
    ['Vera Kessler', 'Vera'],
  ],
  npcs: [
    ['Evelyn Marsh', 'Evelyn', 'E. Marsh'],
    ['Harold Brandt', 'Brandt'],
    ['Peggy Ryan', 'Peggy'],
    ['Eddie Sato', 'Eddie'],
    ['Nick Varga', 'Varga', 'Mister Varga'],
    ['Tommy Kovac', 'Kovac'],
    ['Rosa Delgado', 'Rosa'],
    ['Doctor Albert Fenn', 'Albert Fenn', 'Fenn'],
    ['Benny Shapiro', 'Benny'],
    ['Lieutenant Frank Doyle', 'Frank Doyle', 'Doyle', 'Frank'],
  ],
  places: [
    ['Los Angeles'],
    ['Monarch Pictures', 'Monarch'],
    ['Blue Orchid', 'The Blue Orchid'],
    ['Sunset Strip', 'the Strip'],
    ['Garden of Allah'],
    ['Queen of Angels'],
    ['Hollenbeck station', 'Hollenbeck'],
    ['Santa Monica Pier', 'Santa Monica'],
    ['Laurel Canyon'],
    ['Bakersfield'],
    ['Bunker Hill'],
    ['Venice'],
    ['Main Street'],
  ],
  notPeople: [
    // Abilities, pools and tests.
    'Interrogation',
    'Streetwise',
    'Cop Talk',
    'Stability',
    'Intimidation',
    'Reassurance',
    'Medicine',
    'Athletics',
    'Photography',
    'Forensics',
    // The newspaper, the police, the camera.
    'Herald-Express',
    'LAPD',
    'Speed Graphic',
    // Out of the game: the film and its star, the table.
    'Double Indemnity',
    'Barbara Stanwyck',
    'Dana',
    'Theo',
    'Priya',
    'Sam',
  ],
  alsoPeople: [],
};

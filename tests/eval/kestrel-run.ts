// A third hand-written session for the offline checks, unlike the home game and unlike D&D: a
// space-opera game (ships, planets, factions), about an hour. A game master by first name (Kenji)
// and three players (Ruth, Dev, Ollie) playing Captain Voss, Jax the pilot and Brother Ilo, an
// adept of "the Veil" whose powers are named like spells (Veil Push, Mind Shroud, Ember Lance);
// rules talk (advantage, hit points, initiative), a rules question to the game master, a snack
// break and film talk (Han Solo, Pedro Pascal). Written after the offline retrieval and codex were
// last changed, without reading either, and measured once as it is: every question is untuned,
// and so is its codex reference. Keep it out of any tuning (add a new session instead).
import type { Question } from './questions.ts';
import { lineOf, scriptTranscript } from './script.ts';

const SCRIPT = `Kenji: Alright, recording's on. Welcome back to the Kestrel run, session four. Everybody got their sheets?
Dev: Got it. Jax has full hit points again, finally.
Ruth: Captain Voss is ready. Somebody remind me where we parked.
Kenji: You're docked at Port Ashgrove, the big spaceport city on Korrin Prime. Rain, neon, too many drones.
Kenji: Your contact is late, so let's say Voss and Jax wait in the Rusty Comet, the cantina at the end of dock nine.
Dev: Jax orders the cheapest thing on the menu. Blue noodles.
Kenji: The owner, Old Nessa, brings the noodles herself. She's a tiny woman with a welding mask pushed up on her head.
Ruth: Voss asks her if anyone's been asking about the Kestrel.
Kenji: Persuasion check.
Ruth: Twelve plus four, sixteen.
Kenji: Nessa says a Red Hand hunter has been asking every captain on the dock for a ship that can run the blockade at Haddar.
Dev: Jax leaves her a big tip.
Kenji: She also says the Kestrel still owes her for three months of docking. Six hundred credits.
Ruth: Voss pays half. The rest after this job, Nessa, I promise.
Kenji: She grumbles, but she takes it. Ilo, meanwhile?
Ollie: Brother Ilo meditates in the cargo hold. I'm recovering my Veil points.
Kenji: Your contact finally shows up. Broker Quell, a thin man with chrome fingers and a very expensive coat.
Ruth: Voss meets him at the ramp. No weapons out, but Jax is on the guns.
Dev: Jax is definitely on the guns.
Kenji: Quell has a job. One sealed crate to Tessaly Station, the mining platform in orbit around the moon Haddar. Medical supplies, he says.
Ruth: How much?
Kenji: Eight thousand credits on delivery, two thousand up front.
Dev: That's way too much money for medicine.
Ruth: Voss agrees, it's too much. I want to know what's really in the crate.
Kenji: Make an Insight check. Roll with advantage, you've dealt with Quell before.
Ruth: Advantage, so I take the higher one. Seventeen.
Kenji: He's not lying about the destination. He is lying about the medicine. And he keeps looking over his shoulder at the Red Hand goons across the dock.
Ollie: Ilo reaches out through the Veil toward the crate. Can I sense what's inside?
Kenji: Sure, roll Veil Sense.
Ollie: Twenty-one!
Kenji: It's cold. Something in there is humming in the Veil, old and angry, like the shrine on Vaelos where your master died.
Ollie: Oh no. Master Orun's shrine. Ilo goes very quiet.
Dev: Out of character, this is so Han Solo. We're smuggling a mystery box.
Ruth: Jax is Han Solo. Voss is the responsible one.
Kenji: Quell wants an answer. The Hegemony has a blockade around Haddar, so nobody else will take the job.
Ruth: We take it. Two thousand up front, and we want the access codes for Tessaly Station.
Kenji: He transfers the money and gives you a data chip. He says ask for Mira Santos when you dock, she runs the Miners' Union on Tessaly.
Dev: Jax gets us off the ground before anyone changes their mind.
Kenji: As you lift off, a figure on the roof of the hangar watches you go. Big, four arms, red armour.
Ollie: That's Gorrik, isn't it. The Red Hand bounty hunter.
Kenji: You don't know his name in character, Ollie.
Ollie: Ilo senses a great disturbance. Fine.
Kenji: You jump out of the Korrin system. The trip to Haddar takes two days. Anything during the trip?
Ruth: Voss opens the crate. Carefully.
Kenji: It's locked with a Hegemony military seal.
Dev: Jax can slice it. Do I have proficiency in Tech?
Kenji: You do. Roll Tech, DC fifteen.
Dev: Nat twenty!
Kenji: The seal pops. Inside, in foam, is a lantern of black glass with a pale flame that does not flicker. A label reads: property of the Hegemony Office of Relics, the Lantern of Veth.
Ollie: The Lantern of Veth. Ilo knows this name. The adepts of the old order built it to find people who can touch the Veil.
Ruth: So it's a Veil detector. And the Hegemony hunts Veil users.
Kenji: Exactly. Whoever holds it can find every adept within a light year.
Dev: We're carrying a Brother Ilo finder. Cool. Cool cool cool.
Ruth: Voss closes the crate. We deliver it, we get paid, we don't ask questions.
Ollie: Ilo would rather throw it into a star.
Kenji: Good, some tension. I love it. Okay, quick break, I need coffee.
Dev: Did anyone watch the new Mandalorian trailer?
Ruth: Pedro Pascal could read me the phone book.
Ollie: I'm getting chips, anyone want anything?
Dev: Salt and vinegar please.
Kenji: Okay, we're back. You drop out of hyperspace near Haddar. There's a Hegemony cruiser there, the Iron Verdict, and two patrol frigates.
Ruth: How big is the Iron Verdict?
Kenji: Huge. A kilometre long. It hails you. On the screen is Admiral Teodor Kane, grey uniform, no expression at all.
Dev: Jax switches our transponder. We're the freighter Lucky Moth now, hauling ice.
Kenji: Kane asks for your cargo manifest. Captain, Deception check.
Ruth: Can Ilo help me? Give me advantage?
Ollie: Ilo uses Mind Shroud on the admiral. Rules question, Kenji. Does Mind Shroud work over a video call?
Kenji: Hmm. The power says you have to see the target, and the comm screen counts as seeing him, but he gets a save. He needs a twelve.
Ollie: And if I cast it, can I still use my reaction this round?
Kenji: Yes, Mind Shroud only takes your action, not your reaction.
Kenji: Kane rolls his save. Nine. He fails.
Ruth: So I have advantage on the Deception. Fourteen and eighteen, I take eighteen.
Kenji: Kane blinks slowly and says: proceed, Lucky Moth. Then he adds, the Hegemony thanks you for your cooperation.
Dev: That was too easy.
Kenji: One of the frigates peels off and follows you at a distance.
Dev: Jax flies us into the Drift, the ice ring around Haddar, to lose the frigate. Piloting check!
Kenji: Roll Piloting, with disadvantage, the ice is very dense.
Dev: Disadvantage. Eleven and six. Eleven.
Kenji: You clip an ice block. The Kestrel takes twelve damage to the hull, and Jax, you hit your head on the console. Take four.
Dev: Jax is down to twenty-two hit points.
Kenji: But the frigate loses you in the ice. Ahead, Tessaly Station: three rings of rusty metal around a drilling spike.
Ruth: We dock with the codes Quell gave us.
Kenji: The cargo bay is full of miners with shock batons. A woman with a cybernetic eye steps forward. This is Mira Santos.
Ruth: Voss says we have a delivery from Broker Quell.
Kenji: Mira says Quell promised them medicine. Half the miners have black lung from the drilling dust, and the Hegemony has blocked medical shipments for three months.
Ollie: Ilo tells her the truth. The crate has the Lantern of Veth in it, not medicine.
Kenji: Mira goes pale. She says the Union was going to sell it back to the Hegemony to buy medicine. Quell set it up.
Ruth: So everybody gets paid except the miners.
Kenji: And at that moment the lights in the cargo bay go red. Something has cut through the airlock. Roll initiative.
Dev: Seventeen.
Ruth: Nine.
Ollie: Twenty-three, with my Dex.
Kenji: Gorrik comes through the airlock with two Red Hand thugs. Four arms, two blasters, and a vibro-axe.
Ollie: Ilo goes first. I use Veil Push on Gorrik, to shove him back out the airlock.
Kenji: He makes a Strength save. Eight. He fails. He flies backward into the airlock frame.
Ollie: Can I push him all the way out into space?
Kenji: The push is thirty feet, so he ends up in the airlock but not outside. He's prone.
Dev: Jax shoots him. Do I have advantage because he's prone?
Kenji: Ranged attacks against a prone target have disadvantage, actually. Only melee gets advantage.
Dev: Ugh, fine. Fifteen to hit.
Kenji: That hits. Roll damage.
Dev: Nine damage.
Kenji: Gorrik stands up and fires both blasters at Jax. Sixteen and nineteen. Both hit. Twenty damage.
Dev: Jax is at two hit points. Two!
Ruth: Voss closes the inner airlock door on Gorrik. Can I do that? I'm next to the panel.
Kenji: It's an object interaction, so yes. Roll Tech to override the lock.
Ruth: Nineteen.
Kenji: The door slams shut. Gorrik is stuck between the doors. One of the thugs is inside with you.
Ollie: Ilo uses Ember Lance on the thug.
Kenji: That's a Veil power, spend two Veil points. Roll to hit.
Ollie: Twenty. Fourteen fire damage.
Kenji: He drops. The other thug is on Gorrik's side. Through the little window, Gorrik points at Voss and says: the Lantern belongs to the Red Hand. Kane will pay us all.
Ruth: Wait, the Red Hand is working with Kane?
Kenji: He doesn't answer. Gorrik hits the outer controls and the airlock vents. He jets off to a small ship. The Iron Verdict is on scanners, coming around the moon.
Dev: We have to go. Now.
Ruth: Voss looks at Mira. We're not leaving you the Lantern, they'll burn this station to get it.
Kenji: Mira nods. She says: then take it, and bring us real medicine. She gives you the Union's mining codes, good at any Union rock in the sector.
Ollie: Ilo holds the Lantern. Does it react to me?
Kenji: The flame turns toward you and burns bright blue. Everyone with a scanner in the sector just saw you.
Ollie: That is so bad.
Dev: Jax punches it. Max burn out of the ring.
Kenji: And we'll stop there. The Kestrel jumps, with the Lantern, two hit points on the pilot, and a Hegemony cruiser on your tail.
Ruth: Great session. Next week?
Kenji: Next week. Dev, level up Jax, you earned it.
Dev: Finally. In Traveller I'd have died in character creation.`;

/** The script as a stored transcript: about a minute apart, a few seconds per line. */
export function kestrelTranscript(): { transcript: string; times: string[] } {
  return scriptTranscript(SCRIPT);
}

const at = (text: string) => lineOf(SCRIPT, text);

/** Questions on the Kestrel session, each with the 0-based line that answers it; none tuned. */
export const KESTREL_QUESTIONS: Pick<Question, 'question' | 'turn' | 'tuned'>[] = [
  { question: 'How much does Quell pay for the job?', turn: at('Eight thousand credits'), tuned: false },
  { question: 'What was really inside the crate?', turn: at('lantern of black glass'), tuned: false },
  { question: 'How far away can the Lantern find adepts?', turn: at('within a light year'), tuned: false },
  { question: 'What name did the ship use at the blockade?', turn: at('freighter Lucky Moth'), tuned: false },
  { question: 'Does Mind Shroud work over a video call?', turn: at('comm screen counts'), tuned: false },
  { question: 'Why do the miners need medicine?', turn: at('black lung'), tuned: false },
  { question: 'How much does the Kestrel owe Old Nessa?', turn: at('Six hundred credits'), tuned: false },
  { question: 'Who is Gorrik working with?', turn: at('Kane will pay us all'), tuned: false },
];

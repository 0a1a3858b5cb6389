// A home game written by hand for the offline checks: a game master ("GM") and four friends
// by first name, about an hour, the way a phone recording of a kitchen-table game reads. None
// of its words are in any rule of the engine. `HOME_QUESTIONS` give the line that answers each.
import type { Question } from './questions.ts';
import { scriptTranscript } from './script.ts';

const SCRIPT = `GM: Okay, everyone sit down, let's start. Last time you got off the barge at Millbrook.
Sam: I've got my dice, I'm good.
GM: The village is quiet. A woman runs up to you, her name is Hedda Vorn, she runs the mill.
Priya: Does she look scared?
GM: Terrified. She says her son Tobin went into the Whisperwood three nights ago and never came back.
Jonah: Ask her why he went in there.
GM: She says he was chasing a white stag. Folk say the stag leads people to the old shrine.
Alex: I want to know what she'll pay us.
GM: She offers forty silver and a mule. It's all she has.
Alex: Forty silver and a mule. Fine, we take it.
Priya: I give her a hug, we'll bring him back.
GM: You head out at dusk. The Whisperwood is thick, the trees lean over the path.
Sam: I light a lantern.
Jonah: Can I look for tracks?
GM: Roll survival.
Jonah: Seventeen.
GM: You find small boot prints and, next to them, hoof prints that glow faintly silver.
Sam: That's creepy. We follow them.
GM: After an hour the prints stop at a river. A rope bridge crosses it, and two ogres guard the bridge.
Priya: Ogres. Great.
Alex: Can I talk to them? I'm a bard, I talk to everything.
GM: The bigger ogre grunts. He says the toll is one song or one finger.
Alex: I'll sing. I play the ballad of the drowned king on my lute.
GM: Roll performance.
Alex: Twenty-two!
GM: The ogres weep. The small one, Grub, blows his nose on his sleeve and waves you across.
Sam: I love Grub. Grub is family now.
GM: Across the river the trees are white and the air smells of honey.
Jonah: I keep my bow out.
GM: You reach a clearing with a broken shrine. On the altar sits a silver crown, and Tobin is asleep next to it.
Priya: I check if he's breathing.
GM: He is breathing, but he won't wake up. Vines of pale light wrap his wrists.
Priya: I cast detect magic.
GM: The crown is the source. It feels old and hungry. Whoever wears it dreams forever.
Sam: Nobody touch the crown.
Alex: I want to touch the crown.
Sam: Alex, no.
GM: As you argue, the white stag steps out of the trees. It speaks with a woman's voice. It says: the crown was stolen from the Queen Under the Hill, return it and the boy wakes.
Jonah: Where is the Queen Under the Hill?
GM: The stag says her door is beneath the Barrow of Seven Stones, north of Millbrook, and it opens only at the new moon.
Priya: When's the new moon?
GM: In six days.
Sam: So we have six days. Okay.
Jonah: I wrap the crown in my cloak without touching it.
GM: Good call. The vines around Tobin loosen, but he still sleeps.
Priya: I carry Tobin. I'm the strongest, with my goliath arms.
GM: On the way back, Grub waits at the bridge. He asks if you found the shiny thing. He wants it.
Alex: Absolutely not, Grub.
GM: Grub sulks but says his boss, a hag named Mother Sallow, will come for it. She has been hunting that crown for years.
Sam: Who's Mother Sallow?
GM: Grub won't say more. He just points at the moon and laughs.
Jonah: That's not ominous at all.
GM: You get back to Millbrook before dawn. Hedda cries when she sees Tobin.
Priya: We tell her he'll wake once we return the crown.
GM: Hedda gives you the forty silver and the mule. The mule's name is Turnip.
Sam: Turnip! Best party member.
GM: She also gives Jonah her late husband's hunting horn. She says it was blessed by the river priests.
Jonah: I hang it on my belt.
GM: That night, Alex, you dream of a tall woman with antlers of silver. She says: thief.
Alex: Oh no. I didn't even touch it.
GM: And that's where we stop for tonight.
Sam: Same time next week?
GM: Same time. Bring snacks, Priya.
Priya: I always bring snacks.`;

/** The script as a stored transcript: about a minute apart, a few seconds per line. */
export function homeGameTranscript(): { transcript: string; times: string[] } {
  return scriptTranscript(SCRIPT);
}

/**
 * Questions on the home game, with the 0-based line that answers each. The first eight were run
 * while the retrieval was built (tuned); the rest were written after its last change.
 */
export const HOME_QUESTIONS: Pick<Question, 'question' | 'turn' | 'tuned'>[] = [
  { question: "What is the miller's name?", turn: 2, tuned: true },
  { question: 'Why did Tobin go into the forest?', turn: 6, tuned: true },
  { question: 'How much did Hedda offer to pay?', turn: 8, tuned: true },
  { question: 'What was the toll to cross the bridge?', turn: 21, tuned: true },
  { question: 'What does the crown do to whoever wears it?', turn: 33, tuned: true },
  { question: 'Where is the door of the Queen Under the Hill?', turn: 39, tuned: true },
  { question: 'Who is hunting the crown?', turn: 48, tuned: true },
  { question: 'What is the mule called?', turn: 54, tuned: true },
  { question: 'What did Alex play to pay the toll?', turn: 22, tuned: false },
  { question: 'What did they find next to the boot prints?', turn: 16, tuned: false },
  { question: 'How long until the new moon?', turn: 41, tuned: false },
  { question: 'Who gave Jonah a hunting horn?', turn: 56, tuned: false },
  { question: 'What did the stag say about the crown?', turn: 37, tuned: false },
  { question: 'What did Alex dream about?', turn: 58, tuned: false },
  { question: 'What is the small ogre called?', turn: 25, tuned: false },
  { question: "What is wrapped around Tobin's wrists?", turn: 31, tuned: false },
];

// A fifth hand-written session for the offline checks: a Pathfinder-like fantasy game played
// online by five friends, a game master by first name (Rosa) and four players (Kwame, Lucy, Danny,
// Ifeoma) playing Borin Ashfoot, Thalia, Quill and Sable. The game master calls two of them by
// their character's name (Borin, Thalia) and the others by the player's; players speak in the
// first person ("I cast Fireball"); spells and conditions named (Hold Person, Bless, Prone,
// Frightened), a shopping scene with several named merchants, a journey naming rivers, mountains
// and a pass, a fight at the pass; out of the game a sponsor read, a cat on the keyboard, someone
// muted, and the next session's date. Written without reading the offline retrieval, the codex or
// the character inference, and measured once as it is: every question is untuned. Its codex
// reference (WOLFJAW_CODEX) was measured once unseen, then the codex was changed looking at what it
// missed (tests/eval/README.md, third pass): it is tuned now. Keep the questions out of any
// tuning (add a new session instead, and mark them tuned once a change is judged on them).
import type { CodexReference } from './codex-reference.ts';
import type { Question } from './questions.ts';
import { lineOf, scriptTranscript } from './script.ts';

const SCRIPT = `Rosa: Can everyone hear me? Kwame, your mic is doing the robot thing again.
Kwame: Is this better? I switched to my headphones.
Rosa: Much better. Okay, we're live. Hi chat! Before we start, a quick sponsor read.
Rosa: Tonight's stream is brought to you by Wyrmwood, who made the walnut dice vault I keep my cursed d20 in. Link in the description, code ROSA for ten percent off.
Danny: Does the code work on the cursed d20?
Rosa: The curse is free. Okay, last time on our game. You saved the ferry, you got a bit drunk, and you woke up in the town of Harrowgate.
Lucy: With a headache. Thalia has a headache.
Rosa: Thalia, you wake up in the Gilded Goose with the morning bells ringing. Borin, you're already downstairs, eating.
Kwame: I'm on my third sausage. Borin is a dwarf of routine.
Rosa: A runner in the town colours finds you. Magistrate Odile Ferrant wants to see the four of you at the town hall.
Ifeoma: Sable goes, but she's bringing her breakfast.
Rosa: Magistrate Ferrant is a tall half-elf with ink on her fingers and a very tired face.
Rosa: She says a hobgoblin warband has taken Wolfjaw Pass. No caravan has come through from the east in three weeks, and the last one that tried never arrived.
Danny: How many hobgoblins?
Rosa: She doesn't know. Maybe twenty. Their leader calls himself Warchief Gruzhak.
Lucy: I ask if anyone was on that last caravan.
Rosa: Brother Anselm, a priest of the temple here, was travelling with it. She wants him back alive if he's alive.
Kwame: What's the pay?
Rosa: Three hundred gold for the pass cleared, and a hundred more for Brother Anselm.
Kwame: I'd do it for Anselm alone, but I'll take the gold.
Danny: I'll take Kwame's share if he's too holy for it.
Rosa: She gives you a writ with the town seal, so the merchants will give you the town's discount. Ten percent.
Ifeoma: Shopping! Finally.
Danny: Can we go to the tavern first?
Rosa: Danny, you're muted. We can see your mouth moving.
Danny: Sorry, push to talk. I said, can we go to the tavern first?
Rosa: You live in the tavern. Go shopping.
Rosa: The market square in Harrowgate. It's market day. Where do you go?
Kwame: I want armour. Borin's shield has a crack in it since the ferry.
Rosa: Borin, the smithy is the Anvil and Ember, run by Oskar Helm, a huge man with burn scars up both arms and a very gentle voice.
Kwame: I ask him to fix my shield and I want to look at a heavier one.
Rosa: He can repair it for five gold by tonight. A new steel shield is twenty gold, and he'll engrave your god's symbol on it for free if you tell him a good story.
Kwame: I tell him how we saved the ferry, with a lot of exaggeration.
Rosa: Make a Performance check.
Kwame: Fourteen.
Rosa: He laughs, gives you the shield, and engraves the hammer of Torag on it.
Lucy: Thalia wants scrolls. Is there a bookseller?
Rosa: There's a narrow shop called Quince and Daughter. Yusuf Quince runs it, an old man with spectacles on a chain.
Lucy: Does he have a scroll of Fly? Or any wizard scrolls?
Rosa: He has a scroll of Fly for eighty gold, and a spellbook with Hold Person and Mage Armor in it that once belonged to a student at the academy in Vessel.
Lucy: I buy the spellbook. How much?
Rosa: Sixty gold, fifty-four with the writ.
Lucy: Sold. I'm going to copy Hold Person into my book tonight.
Danny: Quill goes looking for rope. And caltrops. And maybe a ladder, if they sell small ladders.
Rosa: Danny, the general store is run by a halfling, Tilly Bramblefoot, who immediately asks if you're related to the Bramblefoots of Southmoor.
Danny: I say yes. Absolutely. Cousin Quill.
Rosa: Deception check.
Danny: Natural twenty! Plus nine.
Rosa: She's so happy she gives you fifty feet of silk rope, a bag of caltrops and a hooded lantern for the price of the rope, two gold.
Danny: Family discount. Love it.
Ifeoma: Sable needs healing potions. I don't trust Kwame to keep us alive.
Kwame: Rude. True, but rude.
Rosa: There's an apothecary by the well, with drying herbs in the window. Widow Margit Sorrel runs it. She looks at Sable's muddy boots and frowns.
Ifeoma: I want three healing potions and something for the warband's poison, if they use poison.
Rosa: Three minor healing potions at four gold each. And she says the hobgoblins at the pass use arrows dipped in a sleep venom. She sells you two antidotes.
Ifeoma: Great, I'll take them all.
Lucy: Sorry, sorry! That was Pickles on the keyboard. She just walked across the whole chat.
Danny: Pickles typed kkkkkkkk in the stream chat. Chat loves her.
Rosa: Pickles is now the official cat of the campaign. Okay, the road. You leave Harrowgate at dawn.
Rosa: The road runs east along the river Vesk, through farmland and then into pine forest. The first day is quiet.
Ifeoma: Sable is out in front, tracking. Anything on the road?
Rosa: Roll Survival.
Ifeoma: Nineteen.
Rosa: Wagon ruts, old ones, and newer ones going back the other way, heavy, as if someone is hauling loot west to the river.
Rosa: That night you camp under the pines. Who's on watch?
Ifeoma: Sable takes first watch, Borin second.
Kwame: Borin has darkvision, so he takes the darkest part of the night.
Rosa: Nothing attacks. But Borin, around midnight, you hear wolves howling up in the mountains, a lot of them.
Kwame: Borin grips his hammer and prays to Torag until dawn.
Rosa: On the second day you reach the ford where the Silverrun meets the Vesk. The water is high with snowmelt.
Rosa: A ferryman lives there in a hut, Hamlin Reed, an old man with one eye. He says the ford is too deep and he'll pole you across for a silver each.
Kwame: We pay the man. Borin doesn't swim.
Rosa: Hamlin tells you that two nights ago hobgoblins came down to the river with a prisoner in white robes, and went back up toward the pass.
Lucy: Brother Anselm. He's alive, then.
Rosa: Beyond the ford the land rises. Ahead of you are the Thornspire Mountains, grey and white, and the road climbs toward the notch between two peaks. That's Wolfjaw Pass.
Danny: Which peaks?
Rosa: On the left, Mount Kell, with a glacier. On the right, the Old Tooth, which is just a huge broken rock.
Ifeoma: Sorry, my internet dropped for a second. Did I miss anything?
Rosa: Just scenery. Mountains. The Old Tooth. You're climbing.
Ifeoma: Okay, good, I'm back.
Rosa: On the third morning, close to the top of the pass, Sable sees smoke. A camp behind a wall of piled stones.
Ifeoma: I want to scout it. Stealth.
Rosa: Go ahead.
Ifeoma: Twenty-two.
Rosa: You count eleven hobgoblins, two wolves on chains and a big one in black armour with a horned helmet. Warchief Gruzhak. And a man in white robes tied to a post.
Danny: Anselm.
Rosa: Yes. So, what's the plan?
Lucy: Thalia has Fireball prepared. If they stay bunched up around the fire, that's most of them.
Kwame: And Borin will go in and get Anselm.
Danny: I'll sneak around the back and cut him loose while they're busy burning.
Rosa: Okay, roll initiative. Sable and Quill roll Stealth for initiative, the rest roll Perception.
Ifeoma: Twenty.
Danny: Twenty-four.
Lucy: Eleven.
Kwame: Eight. Borin is a slow dwarf.
Rosa: Danny, you're first. Quill is behind the camp.
Danny: I use my three actions to Stride, Stride, and cut the rope. Can I cut it in one action?
Rosa: Interact, one action, yes. Anselm's hands are free, but he's weak. He's not going anywhere fast.
Ifeoma: Sable shoots the wolf nearest to Quill. Two shots. Twenty-one and fifteen.
Rosa: The first hits. Roll damage.
Ifeoma: Eleven.
Rosa: The wolf yelps and goes down. Now the hobgoblins. They see Quill. Three of them draw swords and run at him.
Rosa: Warchief Gruzhak roars. Everyone within thirty feet, Will save.
Danny: Thirteen.
Rosa: Quill, you're Frightened two.
Danny: I'm frightened of a lot of things. What does Frightened do again?
Rosa: Minus two to all your checks and your AC, and it goes down by one every turn.
Rosa: Thalia, you're up.
Lucy: I cast Fireball on the fire. Centre it so it misses Quill and Anselm.
Rosa: You can do that, the radius is twenty feet and they're thirty feet away. The hobgoblins make Reflex saves.
Lucy: Six dice of fire. Twenty-six damage!
Rosa: Six hobgoblins around the fire are burnt to cinders. Two others are badly hurt. The warchief makes his save and takes half.
Lucy: Thalia says, that's for the caravan.
Rosa: Borin, your turn.
Kwame: I cast Bless, so everyone in the aura gets plus one to hit. Then I Stride toward the warchief.
Rosa: Gruzhak swings his greatsword at Borin. Twenty-three against your AC.
Kwame: That hits. I raise my shield, Shield Block!
Rosa: The new shield takes it. Oskar's engraving is scratched, but it holds. You take four.
Danny: Quill is still frightened. I'm going to hide behind Anselm. No, wait, that's terrible. I hide behind a rock.
Rosa: Thalia, the warchief is next to Borin.
Lucy: I cast Hold Person on Gruzhak! I copied it into my book last night.
Rosa: He needs a Will save. He rolls a nine. He's paralysed. Borin, his helmet is right there.
Kwame: I shove him. If he's held I want to knock him Prone.
Rosa: He's paralysed, so no contest. He falls over backward, Prone, and his helmet rolls down the hill.
Kwame: Borin puts his hammer on the warchief's chest and says: yield.
Rosa: Gruzhak, through his teeth, says: I yield. The three hobgoblins left drop their weapons when they see their warchief on his back.
Lucy: Rules question. Does Hold Person end if he takes damage?
Rosa: He gets a new save at the end of each of his turns. Damage doesn't end it.
Lucy: Good to know. Thalia keeps her hand raised, just in case.
Ifeoma: Sable ties them up with Quill's family discount rope.
Danny: That rope has seen things.
Rosa: Brother Anselm is thin and sunburnt, but he's alive. Kwame, he asks for Torag's blessing.
Kwame: Borin casts Heal on him, two actions. He gets back twelve hit points.
Rosa: Anselm says the hobgoblins weren't acting alone. Someone in Harrowgate paid them to close the pass, so the town's grain would have to come by the river.
Lucy: By the river. Hamlin Reed's ferry?
Rosa: Anselm doesn't know. He only heard the warchief talk about a man with a silver ring who pays in new coins.
Danny: I want to search the warchief.
Rosa: Quill, roll Thievery. Frightened is down to one.
Danny: Eighteen, minus one, seventeen.
Rosa: In his belt pouch is a letter with a wax seal of a heron, and forty gold in coins so new they still shine.
Ifeoma: A heron. Whose seal is that?
Rosa: You don't know, but Thalia, roll Society.
Lucy: Twenty.
Rosa: The heron is the seal of the river guild of Harrowgate. They own every barge on the Vesk.
Kwame: So someone made the mountain road dangerous to sell us the river.
Rosa: And that's where we stop tonight. You hold Wolfjaw Pass, you have Anselm, and you have a letter.
Danny: Oh, come on! Right when it gets good.
Rosa: That's the job. Level up, everyone, you've hit level five. Thalia gets third-level spells for real now.
Danny: Chat is asking what the heron letter says.
Rosa: Chat will find out next time. Chat can wait like everyone else.
Ifeoma: Chat is mean to Gruzhak, by the way. Someone named him Grumpy.
Lucy: Bye Pickles, say goodbye to chat.
Rosa: Next session is Sunday the thirteenth of December, same time, seven o'clock. Not Saturday, I have my sister's wedding.
Kwame: Sunday the thirteenth. Got it.
Ifeoma: I'll put it in the Discord.
Rosa: Thanks everyone, and thanks again to Wyrmwood. Goodnight chat!`;

/** The script as a stored transcript: about a minute apart, a few seconds per line. */
export function wolfjawTranscript(): { transcript: string; times: string[] } {
  return scriptTranscript(SCRIPT);
}

const at = (text: string) => lineOf(SCRIPT, text);

/** Questions on the Wolfjaw Pass session, each with the 0-based line that answers it; none tuned. */
export const WOLFJAW_QUESTIONS: Pick<Question, 'question' | 'turn' | 'tuned'>[] = [
  {
    question: 'How much does the magistrate pay for clearing the pass?',
    turn: at('Three hundred gold'),
    tuned: false,
  },
  { question: 'What did Thalia buy from the bookseller?', turn: at('I buy the spellbook'), tuned: false },
  { question: 'What did Tilly give Quill for two gold?', turn: at('fifty feet of silk rope'), tuned: false },
  { question: 'What poison do the hobgoblins use?', turn: at('sleep venom'), tuned: false },
  { question: 'Who carried the party across the river?', turn: at('pole you across'), tuned: false },
  { question: 'What spell stopped the warchief?', turn: at('I cast Hold Person on Gruzhak'), tuned: false },
  {
    question: 'Who paid the hobgoblins to close the pass?',
    turn: at('Someone in Harrowgate paid them'),
    tuned: false,
  },
  { question: 'When is the next session?', turn: at('Sunday the thirteenth of December'), tuned: false },
];

/** What a note-taker would write down from the script (see codex-reference.ts for the fields). */
export const WOLFJAW_CODEX: CodexReference = {
  episode: 'wolfjaw-pass',
  tuned: true,
  party: [['Borin Ashfoot', 'Borin'], ['Thalia'], ['Quill', 'Cousin Quill'], ['Sable']],
  npcs: [
    ['Magistrate Odile Ferrant', 'Odile Ferrant', 'Magistrate Ferrant', 'Ferrant'],
    ['Warchief Gruzhak', 'Gruzhak'],
    ['Brother Anselm', 'Anselm'],
    ['Oskar Helm', 'Oskar'],
    ['Yusuf Quince', 'Quince'],
    ['Tilly Bramblefoot', 'Tilly'],
    ['Widow Margit Sorrel', 'Margit Sorrel', 'Margit'],
    ['Hamlin Reed', 'Hamlin'],
  ],
  places: [
    ['Harrowgate'],
    ['Gilded Goose'],
    ['Wolfjaw Pass'],
    ['Anvil and Ember'],
    ['Quince and Daughter'],
    ['Vesk', 'river Vesk'],
    ['Silverrun'],
    ['Thornspire Mountains', 'Thornspire'],
    ['Mount Kell'],
    ['Old Tooth', 'The Old Tooth'],
    ['Southmoor'],
    ['Vessel'],
  ],
  notPeople: [
    // Spells, conditions, actions, rules.
    'Fireball',
    'Hold Person',
    'Mage Armor',
    'Fly',
    'Bless',
    'Heal',
    'Shield Block',
    'Prone',
    'Frightened',
    'Stride',
    'Interact',
    'Will',
    'Reflex',
    'Performance',
    'Deception',
    'Survival',
    'Stealth',
    'Perception',
    'Thievery',
    'Society',
    'AC',
    // A god, a family, a guild.
    'Torag',
    'Bramblefoots',
    'river guild',
    // Out of the game: the sponsor and its code, the cat, the stream's chat and its nickname for
    // the warchief, the table's app, the table.
    'Wyrmwood',
    'ROSA',
    'Pickles',
    'Chat',
    'Grumpy',
    'Discord',
    'Rosa',
    'Kwame',
    'Lucy',
    'Danny',
    'Ifeoma',
  ],
  alsoPeople: [],
};

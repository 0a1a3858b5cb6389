// An eleventh hand-written session for the offline checks, unlike the others: a samurai game of
// Japanese folklore, run by Hannah for Omar, Mei and Lukas, who play Kurogane Tadashi (a young
// samurai of the Kurogane Clan), Isuzu (a shrine maiden) and Sagisaka Ren (a courtier of the
// Sagisaka Clan). Clans as factions, a lord, a river town and its ferry, a shrine and its priest, a
// ronin, a kappa in the river, honorifics ("-san", "-sama", "Lord"); techniques named like "Iron
// Wind Strike", rings and rolls, a rules question about Void points; an anime argument (Mushishi,
// Demon Slayer) and a pizza delivery mid-game. Written without reading the offline retrieval, the
// codex or the character inference, and measured once as it is: every question is untuned, and
// so is its codex reference (KIRI_RIVER_CODEX). Keep it out of any tuning (add a new session
// instead, and mark this one tuned once a change is judged on it).
import type { CodexReference } from './codex-reference.ts';
import type { Question } from './questions.ts';
import { lineOf, scriptTranscript } from './script.ts';

const SCRIPT = `Hannah: Okay, let's get going. The pizza should be here in about forty minutes, so we'll break when it comes.
Omar: Did you get the one with the mushrooms?
Hannah: I got one mushroom, one pepperoni. Lukas, yours is the pepperoni, don't fight about it.
Lukas: I would never fight about pizza. I am a courtier. I negotiate about pizza.
Hannah: Right. Where we left off. It is the autumn of the third year of peace. You three were sent by Lord Kurogane Hidemasa to the river town of Kiribashi, on the Asagiri River, where the ferry has stopped running.
Mei: Because the ferryman keeps drowning. Or, the ferrymen. Three of them.
Hannah: Three ferrymen in one month. The Kurogane Clan controls the north bank, the Sagisaka Clan controls the south bank, and the river between them is supposed to be neutral. Both clans are blaming each other.
Lukas: And Ren is from the Sagisaka, so Ren is here officially to make sure the Kurogane don't blame us. Unofficially to find out if we did it.
Omar: Tadashi is here to make sure nobody finds out anything embarrassing about his uncle.
Hannah: Which is very fair. So, it's evening. You're at the inn, the Willow Lantern, and the innkeeper, Okiku, is serving you tea very nervously.
Mei: Isuzu bows to her. Okiku-san, thank you for the tea. Please, tell us what the townspeople say about the river.
Hannah: As Okiku: They say the kappa has come back, miko-sama. The old one from my grandmother's time. They say it wants a gift, and nobody has given it one since the shrine burned.
Mei: The shrine burned? Which shrine?
Hannah: The Shrine of the Pale Heron, up the hill behind the town. It burned two winters ago. The priest, old Father Jinbei, still lives in the ruins and sweeps the steps every morning, but nobody goes up there anymore.
Mei: Isuzu is a shrine maiden. I'm going up there first thing tomorrow. That's very my character.
Lukas: Ren wants to talk to whoever runs the ferry. Who pays the ferrymen?
Hannah: A merchant named Gonzaemon. He owns the ferry, two warehouses and, rumour says, half the town's debts.
Lukas: Ren would like to visit Gonzaemon-san tonight. With a gift. I'm a courtier, I always carry a gift.
Hannah: That's a Courtesy check. Roll Air plus Courtesy.
Lukas: Okay, that's four dice. Two successes, one opportunity.
Hannah: Good. Gonzaemon receives you in his warehouse office. He's fat, sweaty, very polite. He tells you the ferrymen all drowned on nights with no moon, and all three were carrying cargo for him.
Lukas: What cargo?
Hannah: He says rice. Your opportunity tells you that he is lying, and that he looked at a locked chest when he said rice.
Lukas: Ren smiles and says nothing. I'm writing that down. Locked chest.
Omar: Meanwhile Tadashi goes to the riverbank. I just want to look at the water.
Hannah: You walk down to the ferry landing. There's a man sitting on an overturned boat, sharpening a blade. Straw hat, patched kimono, no clan mon anywhere. A ronin.
Omar: Tadashi puts his hand on his sword. Who are you?
Hannah: As the ronin: My name is Kagemaru. I have no lord to tell you about, so that's all you get, young master.
Omar: Tadashi is offended by the young master thing. I say, I am Kurogane Tadashi, nephew of Lord Hidemasa. You will address me properly.
Hannah: Kagemaru laughs. He says: Then, Kurogane-sama, you should know the thing in the river is not a kappa. A kappa doesn't drown men on nights with no moon. A kappa doesn't care about the moon.
Omar: What is it, then?
Hannah: He says: Ask the Sagisaka what they were smuggling. And then he goes back to sharpening.
Lukas: Hey. Rude. Accurate, possibly. But rude.
Omar: Can Tadashi tell if he's from one of the clans? Like, his sword style, the way he stands?
Hannah: Roll Water plus Martial Arts.
Omar: One success. Ugh.
Hannah: He stands like someone trained at a dojo in the capital, not a country school. That's all you get. He could have served anyone.
Omar: Tadashi goes back to the inn and sulks. I'm going to sulk in character.
Mei: Isuzu brings him tea. Tadashi-kun, you look like a wet cat.
Omar: Tadashi says, I am not a wet cat. I am a samurai of the Kurogane.
Lukas: A wet samurai.
Hannah: Okay. You all sleep at the Willow Lantern. Okiku lights a lantern at the window all night, and she tells Isuzu it's to keep the river from looking in.
Hannah: Next morning. Isuzu, you climb up to the Shrine of the Pale Heron.
Mei: I bring rice and sake as an offering.
Hannah: The torii is black with soot. Half the main hall is gone. And there's an old man sweeping the steps. Father Jinbei. He's very happy to see a shrine maiden.
Mei: Isuzu kneels and helps him sweep. I ask him, Jinbei-sama, what was the shrine built to protect?
Hannah: As Jinbei: The river, child. The heron watched over the crossing. When the shrine burned, the heron left, and something else came into the water. Something that was a woman once.
Mei: Oh, that's creepy. Like a yurei?
Hannah: He says: Her name was Osen. She was a ferryman's daughter who drowned fifty years ago when the Kurogane and the Sagisaka fought over the crossing. The shrine was built to quiet her.
Mei: I want to use my Spirit Sight technique. Can I see anything in the ruins?
Hannah: Sure, roll Void plus Theology.
Mei: Three successes! And I have a strife. Do I take strife?
Hannah: Take one strife. You see, in the ashes under the altar, a half-burned paper charm with the Sagisaka mon on it. Someone from the Sagisaka was here the night it burned.
Lukas: No. No no no. That's my clan.
Omar: Ren. Buddy.
Lukas: Ren didn't know! Ren is as shocked as anybody.
Hannah: Quick question, Lukas, you had asked me about Void points last time, right?
Lukas: Yes. Can I spend a Void point to add a die after I've rolled, or only before?
Hannah: Before. You spend the Void point when you choose your approach, not after you see the dice. And you get them back when you act in line with your character's ninjo, or with a good night's rest.
Lukas: Okay. Then before my next roll I'm spending one.
Mei: And strife, how much strife before I'm compromised?
Hannah: Your composure is Earth plus Fire times two, so for Isuzu that's eight. You're at one.
Omar: This is so Mushishi. The shrine, the river spirit, the wandering guy with a hat.
Mei: It's not Mushishi, Mushishi is slower. This is more like Demon Slayer if Demon Slayer had no fighting.
Omar: Demon Slayer is all fighting, that's the whole point.
Hannah: Okay, anime club, focus. That night there's no moon. You all decide to watch the river from the ferry landing.
Omar: Tadashi stands in the boat with his sword drawn.
Hannah: The water goes completely still. Then a pale woman rises out of the river, hair floating around her like weeds. Osen. She reaches for the boat.
Omar: I attack. Iron Wind Strike. That's my school technique, I get to add my Fire to the damage.
Hannah: Roll Fire plus Martial Arts.
Omar: Four successes. Iron Wind Strike hits.
Hannah: The blade passes through her like she's smoke. She screams, and the river rises.
Mei: Isuzu throws a purifying charm. I'm using Falling Petal Prayer.
Hannah: That one works. She pulls back, hissing. And then a figure in a straw hat jumps onto the boat. Kagemaru. He grabs Tadashi by the collar and pulls him out of the way of the wave.
Omar: Tadashi, very grudgingly: thank you, Kagemaru-san.
Hannah: Osen turns toward Kagemaru and says one word: Sagisaka. And he flinches.
Lukas: Wait, why would she call him that?
Hannah: Good question. Nobody answers it.
Hannah: And that's the doorbell. That's actually the doorbell. Pizza's here.
Lukas: Pause the ghost!
Hannah: Paused. Ten minutes, then we finish this scene.
Omar: Mushroom's mine.
Lukas: Who had the pepperoni? Omar, that's a pepperoni slice in your hand.
Omar: It fell onto my plate. It's a technique. Falling Pepperoni Strike.
Mei: Please don't put that in the notes.
Hannah: Okay, we're back. Osen is in the water, at the end of the landing. She's not attacking. She's looking at Ren.
Lukas: At me? Why me?
Hannah: She speaks. As Osen: Sagisaka. Your lord's men burned the heron's house. They paid the ferrymen to carry powder across my river, powder for guns. I took them. I will take the next one.
Lukas: Guns. The Sagisaka are smuggling firearms across the river.
Omar: And Gonzaemon's locked chest.
Lukas: Ren is not okay. I need to talk to my lord. Lady Sagisaka Chiyo needs to hear this before anyone else does.
Mei: Isuzu says to Osen, if we rebuild the shrine, will you rest?
Hannah: Osen says: Rebuild it, and return the heron, and let no clan own the crossing. Then she sinks back into the water.
Mei: I promise her. Isuzu promises, on her honor.
Omar: Tadashi says, the Kurogane will pay for the shrine. My uncle will agree. He'll have to.
Lukas: Ren says, the Sagisaka will pay half. Lady Chiyo will agree. Probably. Eventually.
Hannah: That's a big promise. Mark it down. And that's the end of the session.
Omar: Wait, what about Kagemaru?
Hannah: Kagemaru is gone. But on the boat where he was standing, there's a tanto with the Sagisaka mon on the hilt.
Lukas: Oh come on.
Hannah: Next time, Gonzaemon's warehouse. Two weeks from tonight, I'm away next week.
Mei: I'll bring the drinks next time.
Omar: And Tadashi is writing a very angry letter to his uncle.`;

/** The script as a stored transcript: about a minute apart, a few seconds per line. */
export function kiriRiverTranscript(): { transcript: string; times: string[] } {
  return scriptTranscript(SCRIPT);
}

const at = (text: string) => lineOf(SCRIPT, text);

/** Questions on the Kiri River session, each with the 0-based line that answers it; none tuned. */
export const KIRI_RIVER_QUESTIONS: Pick<Question, 'question' | 'turn' | 'tuned'>[] = [
  { question: 'Who owns the ferry?', turn: at('A merchant named Gonzaemon'), tuned: false },
  {
    question: 'When can you spend a Void point?',
    turn: at('You spend the Void point when you choose your approach'),
    tuned: false,
  },
  { question: 'Who was Osen?', turn: at("She was a ferryman's daughter who drowned"), tuned: false },
  {
    question: 'What did Isuzu find under the altar?',
    turn: at('a half-burned paper charm with the Sagisaka mon'),
    tuned: false,
  },
  {
    question: 'What are the Sagisaka smuggling across the river?',
    turn: at('They paid the ferrymen to carry powder'),
    tuned: false,
  },
  {
    question: 'What was left on the boat where Kagemaru stood?',
    turn: at('a tanto with the Sagisaka mon on the hilt'),
    tuned: false,
  },
];

/** What a note-taker would write down from the script (see codex-reference.ts for the fields). */
export const KIRI_RIVER_CODEX: CodexReference = {
  episode: 'kiri-river',
  tuned: false,
  party: [['Kurogane Tadashi', 'Tadashi'], ['Isuzu'], ['Sagisaka Ren', 'Ren']],
  npcs: [
    ['Lord Kurogane Hidemasa', 'Kurogane Hidemasa', 'Hidemasa', 'Lord Hidemasa'],
    ['Okiku', 'Okiku-san'],
    ['Father Jinbei', 'Jinbei', 'Jinbei-sama'],
    ['Gonzaemon', 'Gonzaemon-san'],
    ['Kagemaru', 'Kagemaru-san'],
    ['Osen'],
    ['Lady Sagisaka Chiyo', 'Sagisaka Chiyo', 'Chiyo'],
  ],
  places: [
    ['Kiribashi'],
    ['Asagiri River', 'Asagiri'],
    ['Willow Lantern', 'The Willow Lantern'],
    ['Shrine of the Pale Heron', 'Pale Heron'],
  ],
  notPeople: [
    // The clans (factions).
    'Kurogane Clan',
    'Sagisaka Clan',
    'Kurogane',
    'Sagisaka',
    // Techniques, rings, skills and rules terms.
    'Iron Wind Strike',
    'Falling Petal Prayer',
    'Spirit Sight',
    'Void',
    'Air',
    'Fire',
    'Water',
    'Earth',
    'Falling Pepperoni Strike',
    'Courtesy',
    'Theology',
    'Martial Arts',
    // Out of the game: the anime, the table.
    'Mushishi',
    'Demon Slayer',
    'Hannah',
    'Omar',
    'Mei',
    'Lukas',
  ],
  alsoPeople: [],
};

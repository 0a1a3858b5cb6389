// A question set on the shared CRD3 episodes: each question with the turn that answers it and
// a word or number the answer must show. `tuned` marks the questions that the old, narrating
// engine was tuned on; the retrieval fallback that replaced it was tuned on none of them.
import { answerText } from '../../services/shared/ai/src/offline/answer.ts';
import type { Crd3Episode } from '../support/crd3.ts';
import { timedEpisode } from './data.ts';
import { HOME_QUESTIONS, homeGameTranscript } from './home-game.ts';

export interface Question {
  episode: Crd3Episode;
  question: string;
  /** Index of the answering turn (= line) in the episode. */
  turn: number;
  /** What the answering sentence must contain. */
  expect: RegExp;
  tuned: boolean;
}

const QUESTIONS: Question[] = [
  // Added after the last change to the engine, and run once: never tuned on.
  { episode: 'C1E001', question: 'What is his name?', turn: 566, expect: /Balan/, tuned: false },
  {
    episode: 'C1E022',
    question: 'How much gold for the custom job?',
    turn: 539,
    expect: /80 gold/,
    tuned: false,
  },
  {
    episode: 'C2E030',
    question: 'How many platinum pieces did he push forward?',
    turn: 1645,
    expect: /600 platinum/,
    tuned: false,
  },
  {
    episode: 'C1E001',
    question: 'Who healed Grog after his uncle Kevdak banished him?',
    turn: 3,
    expect: /Pike/,
    tuned: true,
  },
  {
    episode: 'C1E001',
    question: "What is the name of Vex'ahlia's bear?",
    turn: 29,
    expect: /Trinket/,
    tuned: true,
  },
  { episode: 'C2E003', question: 'What did Fjord name his horse?', turn: 568, expect: /Shelby/, tuned: true },
  { episode: 'C2E003', question: 'What did the acid do?', turn: 1333, expect: /melt|caustic/, tuned: true },
  // Name questions written while the engine learnt that a name question wants a name (and not
  // a guess in a question, a player's or a sentence's first word): tuned on.
  {
    episode: 'C1E022',
    question: 'What is the name of the man who meets Pike?',
    turn: 433,
    expect: /Mertin/,
    tuned: true,
  },
  {
    episode: 'C1E022',
    question: 'What was the name of the cleric?',
    turn: 570,
    expect: /Kashaw/,
    tuned: true,
  },
  {
    episode: 'C1E056',
    question: 'What is the name of the man with the awesome mustache?',
    turn: 2120,
    expect: /Fassbender/,
    tuned: true,
  },
  {
    episode: 'C2E030',
    question: 'What did Nott name the horses?',
    turn: 1374,
    expect: /Waterloo/,
    tuned: true,
  },
  { episode: 'C2E030', question: "What is Fjord's middle name?", turn: 28, expect: /Bronco/, tuned: true },
  { episode: 'C2E030', question: 'What is the name of the firbolg?', turn: 152, expect: /Nila/, tuned: true },
  { episode: 'C2E030', question: 'What is the tavern called?', turn: 2065, expect: /Leaky Nip/, tuned: true },
  {
    episode: 'C2E003',
    question: 'How much gold were the two books worth?',
    turn: 986,
    expect: /13 gold/,
    tuned: true,
  },
  {
    episode: 'C1E001',
    question: 'How much gold per room at the inn?',
    turn: 165,
    expect: /15 gold/,
    tuned: false,
  },
  {
    episode: 'C1E001',
    question: 'What is the name of the servant of the Ironkeeper?',
    turn: 1273,
    expect: /Magrim/,
    tuned: false,
  },
  {
    episode: 'C1E022',
    question: 'How much does a warhorse cost?',
    turn: 1025,
    expect: /400 gold/,
    tuned: true,
  },
  {
    episode: 'C1E022',
    question: 'How much gold is in each pouch?',
    turn: 229,
    expect: /630 gold/,
    tuned: false,
  },
  {
    episode: 'C1E022',
    question: 'How much does a short sword cost?',
    turn: 545,
    expect: /ten gold/,
    tuned: true,
  },
  {
    episode: 'C2E030',
    question: 'How much gold did they find on the bodies after Lorenzo was destroyed?',
    turn: 345,
    expect: /131 gold/,
    tuned: false,
  },
  {
    episode: 'C2E030',
    question: 'What was the remaining sum for the agreement for both jobs?',
    turn: 1650,
    expect: /6250 gold/,
    tuned: false,
  },
];

export interface QuestionResult {
  set: string;
  question: string;
  /** The answering line is among the quoted passages (its time is quoted). */
  quoted: boolean;
  /** Its rank among the quoted passages (1 = first), or null. */
  rank: number | null;
}

function hms(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return [h, m, s].map((n) => String(n).padStart(2, '0')).join(':');
}

function judge(set: string, question: string, transcript: string, time: string): QuestionResult {
  const reply = answerText({ transcriptName: set, transcript, history: [], question });
  const passages = reply.split(/\n\n(?=> )/).slice(1);
  const at = passages.findIndex((p) => p.includes(`[${time}]`));
  return { set, question, quoted: at >= 0, rank: at >= 0 ? at + 1 : null };
}

/** Each question answered offline: is the line that answers it among the quoted passages? */
export function runQuestions(): QuestionResult[] {
  const crd3 = QUESTIONS.map((q) => {
    const ep = timedEpisode(q.episode);
    return judge(q.episode, q.question, ep.transcript, hms(ep.turns[q.turn]!.seconds));
  });
  const home = homeGameTranscript();
  return [
    ...crd3,
    ...HOME_QUESTIONS.map((q) => judge('home game', q.question, home.transcript, home.times[q.turn]!)),
  ];
}

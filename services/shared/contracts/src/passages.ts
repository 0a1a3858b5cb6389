import { Type, type Static } from '@sinclair/typebox';
import { tooLongMessage } from './owner-scoped.ts';
import { rpc } from './rpc.ts';

/**
 * Passages: the lines of a session (or of every session of a campaign) that answer a question,
 * found by the transcript service on the full-text index search already keeps, so a question
 * never moves whole transcripts over the bus. Chat about one session and "ask the campaign"
 * both read them.
 */

/** Longest question one may ask of a campaign (characters, after trimming). */
export const ASK_QUESTION_MAX_CHARS = 1_000;
/** The refusals of a question, in the product's words. */
export const ASK_QUESTION_EMPTY = 'Question cannot be empty.';
export const ASK_QUESTION_TOO_LONG = tooLongMessage('Question', ASK_QUESTION_MAX_CHARS);

/** A model answer across a campaign may take a while, like a chat answer. */
export const ASK_REPLY_TIMEOUT_MS = 10 * 60_000;

// Function words that match almost every line; ranking on them only adds noise. Question words
// ("what", "who") are here too: a question's content is its nouns and verbs.
const STOP_WORDS_LIST =
  `a about above after again against all also am an and any are aren't as at be because been before
  being below between both but by can can't cannot could couldn't did didn't do does doesn't doing
  don't down during each even ever every few for from further get gets got had hadn't has hasn't have
  haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll
  i'm i've if in into is isn't it it's its itself just let's like me more most much mustn't my myself
  no nor not now of off on once only or other ought our ours ourselves out over own really same shan't
  she she'd she'll she's should shouldn't so some such than that that's the their theirs them
  themselves then there there's these they they'd they'll they're they've this those through to too
  under until up upon us very was wasn't we we'd we'll we're we've were weren't what what's when when's
  where where's which while who who's whom why why's will with won't would wouldn't you you'd you'll
  you're you've your yours yourself yourselves yes yeah okay ok oh um uh hmm huh gonna wanna gotta
  yep nope mm mhm ah well right tell said say says did does done happen happened happens
  thing things something anything else kind sort lot bit go going went come came`.split(/\s+/);

/** Words too common to carry meaning on their own (lowercase, apostrophes kept). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  STOP_WORDS_LIST.flatMap((w) => [w, w.replace(/'/g, '')]).filter(Boolean),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** The words of a question worth searching for: no stop word, no single letter, no small number. */
export function questionWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const word = match[0].replace(/’/g, "'");
    const lower = word.toLowerCase();
    if (STOP_WORDS.has(lower) || lower.length < 2 || /^\d{1,2}$/.test(lower)) continue;
    words.push(word);
  }
  return words;
}

/**
 * The search words for a question in a conversation: a follow-up that names little ("and
 * then?") borrows the words of the previous question.
 */
export function retrievalQuery(question: string, earlierQuestions: string[]): string {
  const previous = earlierQuestions.at(-1);
  if (questionWords(question).length >= 2 || !previous) return question;
  return `${question} ${previous}`;
}

/** Asking who runs the game: at a table that is whoever does most of the talking. */
export const RUNS_THE_GAME = /\b(game ?master|dungeon ?master|gm|dm|narrator|runs? the game|storyteller)\b/i;

/** One line of a passage: its place among the session's non-blank lines, time, speaker, text. */
export const PassageLineSchema = Type.Object({
  line: Type.Integer({ minimum: 0 }),
  seconds: Type.Union([Type.Integer(), Type.Null()]),
  speaker: Type.Union([Type.String(), Type.Null()]),
  text: Type.String(),
});
export type PassageLine = Static<typeof PassageLineSchema>;

/**
 * A passage: the line that best answers (`lines[hit]`) with the lines around it, in the
 * session's order, and the link that opens its moment.
 */
export const PassageSchema = Type.Object({
  transcript_id: Type.String(),
  transcript_name: Type.String(),
  session_timestamp: Type.String(),
  hit: Type.Integer({ minimum: 0 }),
  lines: Type.Array(PassageLineSchema),
  /** /sessions/{id}#t=HH:MM:SS, or #line=N for a line without a time. */
  link: Type.String(),
  score: Type.Number(),
});
export type Passage = Static<typeof PassageSchema>;

/** A speaker's share of a session's words (who runs the game talks most). */
export const SpeakerShareSchema = Type.Object({
  speaker: Type.String(),
  words: Type.Integer(),
  share: Type.Number(),
  first: PassageLineSchema,
});
export type SpeakerShare = Static<typeof SpeakerShareSchema>;

/** A session the passages were looked for in. */
export const PassageSessionSchema = Type.Object({
  transcript_id: Type.String(),
  name: Type.String(),
  session_timestamp: Type.String(),
  group_id: Type.String(),
});

/**
 * svc.transcript.passages: the passages of one of the owner's sessions (`transcript_id`) or of
 * every session of one of their groups (`group_id`) that best answer `q`, best first, at most
 * `limit` of them and `max_chars` of text. `whole_within`: a single session whose lines come
 * to no more characters is answered whole, in order (`whole`: a model reads it all). `speakers`
 * adds the session's speakers by words spoken. Another owner's session is not_found.
 */
export const passagesRpc = rpc(
  'transcript',
  'passages',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    q: Type.String({ maxLength: 4 * ASK_QUESTION_MAX_CHARS }),
    transcript_id: Type.Optional(Type.String()),
    group_id: Type.Optional(Type.String()),
    limit: Type.Integer({ minimum: 1, maximum: 200 }),
    max_chars: Type.Integer({ minimum: 100, maximum: 400_000 }),
    whole_within: Type.Optional(Type.Integer({ minimum: 0, maximum: 400_000 })),
    speakers: Type.Optional(Type.Boolean()),
  }),
  Type.Object({
    sessions: Type.Array(PassageSessionSchema),
    passages: Type.Array(PassageSchema),
    whole: Type.Boolean(),
    speakers: Type.Array(SpeakerShareSchema),
  }),
);
export type PassagesResult = Static<typeof passagesRpc.response>;

/** A cited moment of an answer: the session and where in it. */
export const CitationSchema = Type.Object({
  transcript_id: Type.String(),
  transcript_name: Type.String(),
  seconds: Type.Union([Type.Integer(), Type.Null()]),
  line: Type.Integer({ minimum: 0 }),
  link: Type.String(),
});
export type Citation = Static<typeof CitationSchema>;

/** POST /api/groups/{id}/ask body. The question is checked (and refused in words) by the chat service. */
export const AskBodySchema = Type.Object({ question: Type.String() });
export type AskBody = Static<typeof AskBodySchema>;

/** The answer to a question about a campaign: text (quotes offline, words with a model) and its moments. */
export const AskAnswerSchema = Type.Object({
  answer: Type.String(),
  citations: Type.Array(CitationSchema),
});
export type AskAnswer = Static<typeof AskAnswerSchema>;

/** svc.chat.ask: a question across every session of one of the owner's groups. Nothing is stored. */
export const chatAskRpc = rpc(
  'chat',
  'ask',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    group_id: Type.String(),
    question: Type.String(),
  }),
  AskAnswerSchema,
);

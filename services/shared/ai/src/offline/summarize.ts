/**
 * Extractive session summaries that scale with the input and cover its timeline. A transcript
 * is cut into scenes (at time gaps and where the talk changes topic: the lowest similarity
 * between the lines before and after a point); the pre-show and the recap of earlier episodes
 * ("last we left off ...") are recognised and left out, and so is table talk. Each sentence is
 * scored by the cosine of its TF-IDF vector with its scene's (centroid summarisation), favouring
 * story told by the narrator and characters doing things over chatter, and each scene's best
 * sentences are picked with maximal marginal relevance so near-duplicates don't crowd out the
 * rest. A short window gets the few sentences whose words a person summing it up would use (see
 * salience); a long session gets sections a game master uses
 * (what happened, people met, places, loot and rewards, open threads), each line citing the
 * moment as a `[HH:MM:SS]` link kept out of the prose. A campaign summary is built from its
 * sessions' summaries.
 */
import type { SessionDigest } from '../engine.ts';
import { tokenize } from '../retrieval.ts';
import { namedCast, openThreads, THREAD_CUES } from './answer.ts';
import { characterMapFor, type CharacterLink, type CharacterMap } from './characters.ts';
import { compress, narrate, type NarrationContext } from './narrate.ts';
import { pickSalient, SALIENCE, type SalienceCandidate, type SalienceModel } from './salience.ts';
import {
  clip,
  cosine,
  inverseDocFreq,
  mentionPattern,
  mentions,
  sameName,
  splitSentences,
  tableTalk,
  tfidf,
  transcriptSentences,
  type Sentence,
  type Vector,
} from './text.ts';

export const OFFLINE_SUMMARY_NOTE =
  '_Offline summary (no AI model is configured): sentences picked from the transcript; each time links to its moment._';
export const OFFLINE_CAMPAIGN_NOTE =
  "_Offline campaign summary (no AI model is configured): built from the sessions' summaries._";

export interface SummaryOptions {
  /**
   * At most this many story sentences (default: a long transcript's from its length, 2 to 40; a
   * short one's as many as the word-importance selection takes).
   */
  maxSentences?: number;
  /** The campaign's speaker-to-character map; inferred from the transcript when absent. */
  characters?: CharacterLink[];
  /** The word-importance weights a short transcript's sentences are picked with (see salience). */
  salience?: SalienceModel;
}

/** Quoted sentences are cut to this length so one monologue can't fill a summary. */
const MAX_SENTENCE_CHARS = 240;
const MMR_LAMBDA = 0.7;
/** A sentence this similar to one already picked is a near-duplicate. */
const DUPLICATE_COSINE = 0.5;
/** Lines further apart than this (seconds) are different scenes (a break, another day). */
const SCENE_GAP_SECONDS = 300;
/** Below this many words a transcript is a window of a session: a few sentences. */
const SHORT_WORDS = 4000;

/** How many story sentences a transcript of `words` words deserves. */
export function summaryBudget(words: number): number {
  if (words < SHORT_WORDS) return 2;
  return Math.min(40, 2 + Math.round((words - SHORT_WORDS) / 1100));
}

// A recap of earlier episodes ("Last we left off ...") opens many sessions, after the
// announcements; the game starts for real at "let's begin" or "and we begin".
const RECAP_START = /\b(?:we left off|last time (?:on|we)|previously on|recap)\b/i;
const GAME_START =
  /\b(?:let's (?:go|begin|get (?:started|into it|going)|jump (?:in|into it|back in)|dive (?:in|into it)|play|do this)|and we begin|let us begin|we begin|let's start)\b/i;

/**
 * The first line of the story: after the pre-show and the recap of earlier episodes when the
 * transcript opens with them (a long transcript only; a window has neither).
 */
export function storyStart(sentences: Sentence[], narrator = mostSpoken(sentences)): number {
  const lines = (sentences.at(-1)?.line ?? 0) + 1;
  if (lines < 200) return 0;
  const byNarrator = sentences.filter((s) => s.speaker === narrator);
  const begins = (s: Sentence) => GAME_START.test(s.text) && !/\brecap\b/i.test(s.text);
  const recap = byNarrator.find((s) => s.line < lines * 0.3 && RECAP_START.test(s.text));
  if (recap) return recapEnd(sentences, recap.line, narrator, lines) + 1;
  const start = byNarrator.find((s) => s.line < lines * 0.35 && begins(s));
  return start ? start.line + 1 : 0;
}

/** Who says most: in a whole session, the game master. */
function mostSpoken(sentences: Sentence[]): string | null {
  const words = new Map<string, number>();
  for (const s of sentences) if (s.speaker) words.set(s.speaker, (words.get(s.speaker) ?? 0) + s.text.length);
  return [...words.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

// The game master closing the game ("we'll pick that up next week", "and we'll leave it at
// that", "bring this session to a close", "thank you all so much for tuning in").
const GAME_END =
  /\b(?:(?:we(?:'ll|’ll| will)|let's|let’s|let us) pick (?:that|this|it) up|(?:that's|that’s|this is|that is) where we(?:'ll|’ll| will)? (?:end|stop|leave (?:it|off)|pick (?:it )?up)|we(?:'ll|’ll| will|'re going to|’re going to) (?:leave it|end it|stop it|call it) (?:at that|there|here|for (?:tonight|today))|bring (?:this|the|tonight's|tonight’s) (?:session|game|episode|story) to (?:a close|an end)|(?:thank you|thanks)(?: (?:all|guys|everyone|everybody|folks))?(?: (?:so|very) much)? for (?:watching|tuning in|joining us))\b/i;

/**
 * Where the story ends: before the game master's sentence that closes the game in the last
 * part of a long transcript, so the announcements and chat after it are left out (a window,
 * or a session without such a sentence, ends with its last line).
 */
export function storyEnd(sentences: Sentence[], narrator = mostSpoken(sentences)): number {
  const lines = (sentences.at(-1)?.line ?? 0) + 1;
  if (lines < 200) return sentences.length;
  const at = sentences.findIndex(
    (s) =>
      s.line >= lines * 0.85 &&
      s.speaker === narrator &&
      GAME_END.test(s.text) &&
      // "We'll pick this up after the break" is a pause, not the end.
      !/\b(?:break|back in|after (?:the|a|this|our)|in a (?:few|couple|bit|moment|minute)|right back)\b/i.test(
        s.text,
      ),
  );
  return at < 0 ? sentences.length : at;
}

const RECAP_END =
  /\b(?:where we (?:begin|pick up|left off|start)|and we begin|we pick up|let's (?:begin|get started|jump (?:in|back in)|pick (?:it )?up))\b/i;

/**
 * The last line of a recap: the game master's long turns from its start, through the players'
 * short interjections, until one says where the game begins or hands it over with a question.
 */
function recapEnd(sentences: Sentence[], start: number, narrator: string | null, lines: number): number {
  const byLine = new Map<number, { speaker: string | null; text: string }>();
  for (const s of sentences) {
    const entry = byLine.get(s.line);
    if (entry) entry.text += ` ${s.text}`;
    else byLine.set(s.line, { speaker: s.speaker, text: s.text });
  }
  const words = (text: string) => text.split(/\s+/).length;
  let end = start;
  if (RECAP_END.test(byLine.get(start)?.text ?? '')) return end;
  const limit = Math.min(start + 30, start + lines * 0.06);
  for (let line = start + 1; line <= limit; line++) {
    const l = byLine.get(line);
    if (!l) continue;
    if (l.speaker === narrator) {
      // A short turn is the game again, unless it carries on the recap's sentence ("-- after which").
      if (words(l.text) < 40 && !/^(?:--|—|…)/.test(l.text.trim())) break;
      end = line;
      if (RECAP_END.test(l.text) || l.text.trim().endsWith('?')) break;
    } else if (words(l.text) >= 15) break;
  }
  return end;
}

interface Candidate extends Sentence {
  index: number;
  seconds: number | null;
  tokens: string[];
  vector: Vector;
  score: number;
  scene: number;
}

const NAME_WORD = /(?<=\s)[\p{Lu}][\p{Ll}'’-]{2,}/gu;

function seconds(time: string | null): number | null {
  if (!time) return null;
  const [h, m, s] = time.split(':').map(Number);
  return h! * 3600 + m! * 60 + s!;
}

/** Scene starts (indexes into `items`): k-1 cuts near even spacing, moved to the topic shifts. */
function sceneStarts(items: Candidate[], k: number, idf: Map<string, number>): number[] {
  const n = items.length;
  if (k <= 1 || n < k * 4) return [0];
  const starts = [0];
  const half = Math.max(4, Math.min(40, Math.floor(n / (2 * k))));
  const block = (from: number, to: number) =>
    tfidf(
      items.slice(Math.max(0, from), Math.min(n, to)).flatMap((c) => c.tokens),
      idf,
    );
  for (let cut = 1; cut < k; cut++) {
    const ideal = Math.round((cut * n) / k);
    const reach = Math.floor(n / (3 * k));
    let best = ideal;
    let bestValue = Infinity;
    for (let p = Math.max(starts.at(-1)! + 2, ideal - reach); p <= Math.min(n - 2, ideal + reach); p += 2) {
      const a = items[p - 1]!.seconds;
      const b = items[p]!.seconds;
      const gap = a !== null && b !== null && b - a > SCENE_GAP_SECONDS;
      const value = gap ? -1 : cosine(block(p - half, p), block(p, p + half));
      if (value < bestValue) {
        bestValue = value;
        best = p;
      }
    }
    starts.push(best);
  }
  return starts;
}

export interface PickedSummary {
  /** The chosen story sentences, in transcript order. */
  sentences: (Sentence & { scene: number })[];
  /** Every sentence of the story (recap and pre-show left out), for the other sections. */
  story: Sentence[];
  characters: CharacterMap;
  /** The game master: the speaker with the most words, when there are several. */
  narrator: string | null;
  /** Who a sentence is about when it is told as narrative (see narrate). */
  narration: (s: Sentence) => NarrationContext;
  long: boolean;
  /** A short transcript's sentences as the word-importance model saw them, and the party's names. */
  salience?: { candidates: SalienceCandidate[]; characters: string[] };
}

/** Scores a sentence as summary material, apart from its centrality. */
function quality(
  s: Sentence,
  tokens: string[],
  narrator: string | null,
  map: CharacterMap,
  long: boolean,
): number {
  const words = s.text.split(/\s+/).length;
  let q = 1;
  if (words < 6) q *= 0.25;
  else if (words < 10) q *= 0.7;
  // In a window's few sentences, one past 25 words says more than one thing: its value is spread
  // over its length. A session's scenes have room for long sentences that tell a whole event.
  else if (!long && words > 25) q *= 25 / words;
  else if (words > 55) q *= 0.75;
  q *= 1 - 0.9 * tableTalk(s.text);
  if (s.text.endsWith('?')) q *= 0.55;
  if (narrator && s.speaker === narrator) q *= 1.3;
  // Characters doing things: names in the sentence, or a player speaking as their character.
  const names = (` ${s.text}`.match(NAME_WORD) ?? []).length;
  q *= 1 + 0.25 * Math.min(2, names);
  if (
    map.characterOf(s.speaker) &&
    /^I (?:just |also |then |quickly )?(?!think|guess|mean|don't|do\b|was|am|have|know|want|feel|hope|wonder|like|love|need|believe|bet|agree|remember|forgot|can't|didn't|wish|swear|see\b|hear\b)[a-z]+/.test(
      compress(s.text),
    )
  )
    q *= 1.1;
  if (tokens.length < 3) q *= 0.3;
  return q;
}

/** The chosen sentences of a transcript and what the structured sections are built from. */
export function pickSummary(transcript: string, opts: SummaryOptions = {}): PickedSummary {
  const all = transcriptSentences(transcript);
  const map = characterMapFor(transcript, opts.characters);
  const host = mostSpoken(all);
  const start = storyStart(all, host);
  const story = all.slice(0, storyEnd(all, host)).filter((s) => s.line >= start);
  const words = story.reduce((n, s) => n + s.text.split(/\s+/).length, 0);
  const budget = opts.maxSentences ?? summaryBudget(words);
  const long = words >= SHORT_WORDS;
  const none = () => ({ character: null, narrator: false, characters: [] });
  if (story.length === 0)
    return { sentences: [], story, characters: map, narrator: null, narration: none, long };

  // The game master speaks most; alone, they are the one who plays no character of the party.
  const top = mostSpoken(story);
  const several = new Set(story.flatMap((s) => (s.speaker ? [s.speaker] : []))).size > 1;
  const narrator = several || (top !== null && map.size > 0 && !map.characterOf(top)) ? top : null;
  const speakerOfLine = new Map(story.map((s) => [s.line, s.speaker]));
  const narration = (s: Sentence): NarrationContext => ({
    character: map.characterOf(s.speaker),
    narrator: narrator !== null && s.speaker === narrator,
    characters: map.links.map((l) => l.character),
    addressee: map.characterOf(speakerOfLine.get(s.line - 1) ?? null),
    pronounsOf: (c) => map.pronounsOf(c),
  });
  const tokens = story.map((s) => tokenize(s.text));
  const idf = inverseDocFreq(tokens);

  const items: Candidate[] = story.map((s, index) => ({
    ...s,
    index,
    seconds: seconds(s.time),
    tokens: tokens[index]!,
    vector: tfidf(tokens[index]!, idf),
    score: 0,
    scene: 0,
  }));
  const k = long ? Math.max(2, Math.round(budget / 2.5)) : 1;
  const starts = sceneStarts(items, k, idf);
  for (const [scene, from] of starts.entries()) {
    const to = starts[scene + 1] ?? items.length;
    const members = items.slice(from, to);
    const centroid = tfidf(
      members.flatMap((c) => c.tokens),
      idf,
    );
    for (const c of members) {
      c.scene = scene;
      c.score = cosine(c.vector, centroid) * quality(c, c.tokens, narrator, map, long);
    }
  }

  const chosen: Candidate[] = [];
  const take = (pool: Candidate[], quota: number) => {
    const ranked = pool
      .filter((c) => c.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, 80);
    const best = ranked[0]?.score ?? 1;
    let picked = 0;
    while (picked < quota) {
      let pick: Candidate | null = null;
      let pickValue = -Infinity;
      for (const c of ranked) {
        if (chosen.includes(c)) continue;
        const similarity = chosen.reduce((m, o) => Math.max(m, cosine(o.vector, c.vector)), 0);
        if (similarity >= DUPLICATE_COSINE) continue;
        const value = MMR_LAMBDA * (c.score / best) - (1 - MMR_LAMBDA) * similarity;
        if (value > pickValue) {
          pickValue = value;
          pick = c;
        }
      }
      if (!pick) break;
      chosen.push(pick);
      picked += 1;
    }
  };
  let salience: PickedSummary['salience'];
  if (!long) {
    // A window of a session, or a short one: the sentences whose words a person summing it up
    // would use, as many as raise the summary's expected overlap with what they would write.
    const all = items.map((c) => ({ c, prose: narrate(c.text, narration(c)) }));
    // Something said, not "All right." or "Meat hook?" (unless nothing more is said).
    const said = all.filter((x) => x.c.tokens.length >= 2 && x.prose.split(/\s+/).length >= 4);
    const told = said.length > 0 ? said : all.filter((x) => x.c.tokens.length > 0);
    const candidates = told.map((x) => ({
      prose: x.prose,
      score: x.c.score,
      narrator: narrator !== null && x.c.speaker === narrator,
    }));
    const characters = map.links.map((l) => l.character);
    salience = { candidates, characters };
    for (const i of pickSalient(candidates, characters, opts.salience ?? SALIENCE, opts.maxSentences))
      chosen.push(told[i]!.c);
  }
  for (const [scene, from] of long ? starts.entries() : []) {
    const quota = Math.floor(budget / starts.length) + (scene < budget % starts.length ? 1 : 0);
    take(items.slice(from, starts[scene + 1] ?? items.length), quota);
  }
  if (long && chosen.length < budget) take(items, budget - chosen.length);
  const sentences = chosen
    .sort((a, b) => a.index - b.index)
    .map(({ time, speaker, text, line, scene }) => ({ time, speaker, text, line, scene }));
  return { sentences, story, characters: map, narrator, narration, long, ...(salience ? { salience } : {}) };
}

/** The chosen sentences of a transcript, in transcript order. */
export function pickSummarySentences(transcript: string, opts: SummaryOptions = {}): Sentence[] {
  return pickSummary(transcript, opts).sentences.map(({ time, speaker, text, line }) => ({
    time,
    speaker,
    text,
    line,
  }));
}

/** A `[HH:MM:SS]` link to a moment of the session (the viewer jumps to `#t=HH:MM:SS`). */
export function timeLink(time: string): string {
  return `[[${time}]](#t=${time})`;
}

const TIME_LINK = /\s*\[\[(\d{1,3}:\d\d:\d\d)\]\]\(#t=[^)]*\)/g;

/**
 * A sentence as narrative prose: compressed, a player's line told of their character ("Grog
 * hits it."), the game master's "you" told of the party or the character addressed.
 */
function prose(s: Sentence, picked: PickedSummary): string {
  return clip(narrate(s.text, picked.narration(s)), MAX_SENTENCE_CHARS);
}

function links(sentences: Sentence[]): string {
  return [...new Set(sentences.flatMap((s) => (s.time ? [s.time] : [])))].map(timeLink).join(' ');
}

const LOOT =
  /\b(?:\d[\d,]*\s*(?:gold|silver|copper|platinum|gp|pieces?)|gold|platinum|coins?|reward(?:s|ed)?|treasure|loot|potions?|scrolls?|amulet|ring|gems?|jewel(?:s|ry)?|magic(?:al)? (?:item|weapon|armor)|pays? you|paid|receive[sd]?|hands? over|(?:gives?|hands?) (?:you|them|him|her) (?:a|an|the|this|these|two|three|some|\d+)\b(?! (?:little|idea|sense|moment|look|chance|second|feeling|glance|nod|smile|hint|clue|warning|hard time|information|secret|location|way|answer|name|details?|rundown|benefit|option|opportunity|choice|directions?|entrance|password|signal|order|command)\b)|purse|payment|bounty)\b/i;

/** A sentence cut off on a word that needs more after it. */
const FRAGMENT_END =
  /\b(?:who|which|that|the|a|an|of|to|and|or|but|with|for|from|in|on|at|into|their|his|her)[.…]$/i;

/** The offline session summary: a notice, then prose for a window or sections for a session. */
export function summarizeSessionText(name: string, transcript: string, opts: SummaryOptions = {}): string {
  // A summary is stored under the 10,000-character limit: fewer sentences until it fits.
  let text = sessionSummary(name, transcript, opts);
  let max = opts.maxSentences ?? 40;
  while (text.length > SUMMARY_MAX_CHARS && max > 2) {
    max = Math.floor(max * 0.75);
    text = sessionSummary(name, transcript, {
      ...opts,
      maxSentences: Math.min(max, summaryBudget(transcript.length / 5)),
    });
  }
  return text.length > SUMMARY_MAX_CHARS ? clip(text, SUMMARY_MAX_CHARS) : text;
}

const SUMMARY_MAX_CHARS = 9_500;

function sessionSummary(name: string, transcript: string, opts: SummaryOptions): string {
  const picked = pickSummary(transcript, opts);
  if (picked.sentences.length === 0) {
    return `${OFFLINE_SUMMARY_NOTE}\n\nThe transcript of ${name} has no sentences to summarise.`;
  }
  const map = picked.characters;
  if (!picked.long) {
    const text = picked.sentences.map((s) => prose(s, picked)).join(' ');
    const moments = links(picked.sentences);
    return `${OFFLINE_SUMMARY_NOTE}\n\n${text}${moments ? `\n\nMoments: ${moments}` : ''}`;
  }
  const out = [OFFLINE_SUMMARY_NOTE, '', '### What happened'];
  const scenes = new Map<number, Sentence[]>();
  for (const s of picked.sentences) scenes.set(s.scene, [...(scenes.get(s.scene) ?? []), s]);
  for (const group of scenes.values()) {
    out.push(`- ${group.map((s) => prose(s, picked)).join(' ')} ${links(group)}`.trimEnd());
  }

  const story = picked.story;
  const playerCharacters = map.links.map((l) => l.character);
  const speakers = new Set(story.flatMap((s) => (s.speaker ? [s.speaker.toLowerCase()] : [])));
  // "Beauregard" is Beau of the party, "Vex" is Vex'ahlia.
  const isParty = (term: string) =>
    playerCharacters.some(
      (c) => mentions(c, term.split(' ')[0]!) || mentions(term, c.split(/['’\s]/)[0]!) || sameName(c, term),
    );
  // Names from the story's lines: the break's sponsor ("D&D Beyond") and the dice are nobody.
  const { characters, places } = namedCast(
    story.filter((s) => tableTalk(s.text) < 0.5),
    3,
  );
  const people = characters.filter((c) => !isParty(c) && !speakers.has(c.toLowerCase())).slice(0, 8);
  const firstMention = (term: string) => story.find((s) => mentions(s.text, term));
  const describe = (term: string) => {
    const first = firstMention(term);
    return `- **${term}**${first?.time ? ` ${timeLink(first.time)}` : ''}`;
  };
  out.push('', '### People met');
  if (map.size > 0) {
    out.push(`- The party: ${joinList(map.links.map((l) => `${l.character} (${titleCase(l.speaker)})`))}`);
  }
  if (people.length === 0) out.push('- No recurring characters found besides the party.');
  for (const p of people) out.push(describe(p));
  out.push('', '### Places');
  const shownPlaces = places.filter((p) => !isParty(p)).slice(0, 6);
  if (shownPlaces.length === 0) out.push('- No named places found.');
  for (const p of shownPlaces) out.push(describe(p));

  out.push('', '### Loot and rewards');
  // What was found or paid, told whole: not a question about it, nor a line broken off
  // ("On the bodies of everyone who--").
  const told = (s: Sentence) => {
    const p = prose(s, picked);
    return p.split(/\s+/).length >= 6 && !FRAGMENT_END.test(p);
  };
  const loot = story
    .filter(
      (s) =>
        LOOT.test(s.text) &&
        !s.text.trim().endsWith('?') &&
        // "A level two potion would be 4d4 + 4" is the rules, not what was found.
        !/\b\d*d\d+\b/i.test(s.text) &&
        tableTalk(s.text) < 0.3 &&
        s.text.split(/\s+/).length >= 6 &&
        told(s),
    )
    .map((s) => ({ s, value: /\d/.test(s.text) ? 2 : 1 }))
    .sort((a, b) => b.value - a.value || a.s.line - b.s.line)
    .slice(0, 5)
    .map((x) => x.s)
    .sort((a, b) => a.line - b.line);
  if (loot.length === 0) out.push('- Nothing found.');
  for (const s of loot) out.push(`- ${prose(s, picked)} ${links([s])}`.trimEnd());

  out.push('', '### Open threads');
  const tail = story.filter((s) => s.line >= (story.at(-1)!.line * 2) / 3);
  const threads = openThreads(tail, 4, [...people, ...shownPlaces]).sort((a, b) => a.line - b.line);
  if (threads.length === 0) out.push('- None stand out.');
  for (const s of threads) out.push(`- ${prose(s, picked)} ${links([s])}`.trimEnd());
  return out.join('\n');
}

function titleCase(tag: string): string {
  return tag === tag.toUpperCase()
    ? tag.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_, a, b: string) => a + b.toUpperCase())
    : tag;
}

/**
 * The key sentences of a session summary, whatever wrote it: offline notes, markdown marks
 * and the "[time] SPEAKER:" prefixes of quoted lines are dropped.
 */
export function summarySentences(summary: string): string[] {
  const out: string[] = [];
  for (const rawLine of summary.split(/\r?\n/)) {
    let line = rawLine.replace(TIME_LINK, '').trim();
    if (!line || /^_offline\b/i.test(line) || (/^#+\s/.test(line) && line.length < 60)) continue;
    if (
      /^(?:[-*+]\s+)?(?:Moments:|The party:|No (?:recurring|named)|Nothing found\.|None stand out\.)/.test(
        line,
      )
    )
      continue;
    line = line
      .replace(/^(?:[-*+>]|\d+[.)])\s+/, '')
      .replace(/^\[\d{1,3}:\d\d:\d\d\]\s*/, '')
      .replace(/^[\p{Lu}\p{N}][\p{L}\p{N}'’._ -]{0,39}:\s+/u, (m) => (m.length < 42 ? '' : m))
      .replace(/\*\*|__|`/g, '')
      .trim();
    if (line) out.push(...splitSentences(line));
  }
  return out;
}

function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toISOString().slice(0, 10);
}

/**
 * The offline campaign summary: who and where (the party from the campaign's map, the other
 * characters and the places its sessions name, each typed), the open threads of the latest
 * sessions, then one line per session, oldest first.
 */
export function summarizeCampaignText(
  name: string,
  sessions: SessionDigest[],
  party: CharacterLink[] = [],
): string {
  const ordered = [...sessions].sort((a, b) => Date.parse(a.date) - Date.parse(b.date));
  const withSummary = ordered.filter((s) => s.summary.trim().length > 0);
  const sentencesBySession = new Map(ordered.map((s) => [s, summarySentences(s.summary)]));

  const lines: string[] = [OFFLINE_CAMPAIGN_NOTE, ''];
  const count = `${ordered.length} session${ordered.length === 1 ? '' : 's'}`;
  if (ordered.length === 0) {
    lines.push(`${name} has no sessions yet.`);
    return lines.join('\n');
  }
  if (withSummary.length === 0) {
    lines.push(`${name} has ${count}, none of them summarised yet: summarise a session first.`);
  } else {
    lines.push(`${name} spans ${count}.`);
  }

  const cast = campaignCast(withSummary, sentencesBySession);
  const isParty = (term: string) =>
    party.some((p) => mentions(term, p.character.split(/['’\s]/)[0]!) || mentions(p.character, term));
  const partyNames = party.map((p) => p.character);
  const characters = [...cast.characters, ...cast.places.filter(isParty)].filter((c) => !isParty(c));
  const places = cast.places.filter((p) => !isParty(p));
  const salient = [...characters.slice(0, 6), ...places.slice(0, 4)];
  if (withSummary.length > 0) {
    lines.push('');
    if (partyNames.length > 0) lines.push(`- **The party:** ${joinList(partyNames)}`);
    if (characters.length > 0) lines.push(`- **Characters:** ${joinList(characters.slice(0, 8))}`);
    if (places.length > 0) lines.push(`- **Places:** ${joinList(places.slice(0, 6))}`);
    const threads = openThreadsOf(withSummary.slice(-2));
    if (threads.length > 0) lines.push(`- **Open threads:** ${threads.map((t) => clip(t, 160)).join(' ')}`);
  }
  lines.push('', '### Sessions');
  for (const s of ordered) {
    const key = keySentences(sentencesBySession.get(s)!, salient);
    const label = `**${s.name}** (${formatDate(s.date)})`;
    lines.push(key ? `- ${label}: ${key}` : `- ${label}: no summary yet.`);
  }
  return lines.join('\n');
}

/**
 * The names of a session summary's own "People met" and "Places" sections (an offline one):
 * typed there with the whole transcript to go on, not just the summary's sentences.
 */
function typedNames(summary: string): { people: string[]; places: string[] } | null {
  const sections = summary.split(/^### /m);
  const people = sections.find((x) => x.startsWith('People met'));
  const places = sections.find((x) => x.startsWith('Places'));
  if (people === undefined && places === undefined) return null;
  const names = (section = '') => [...section.matchAll(/^- \*\*(.+?)\*\*/gm)].map((m) => m[1]!);
  return { people: names(people), places: names(places) };
}

/**
 * The campaign's other characters and places, most sessions first: each session votes once for
 * each name, as its summary's sections typed it, or (a summary without them, written by a
 * model or by hand) as its sentences suggest. "Beau" and "Beauregard" are one name.
 */
function campaignCast(
  sessions: SessionDigest[],
  sentencesBySession: Map<SessionDigest, string[]>,
): { characters: string[]; places: string[] } {
  const votes: { name: string; people: number; places: number }[] = [];
  const vote = (name: string, kind: 'people' | 'places') => {
    let entry = votes.find((v) => v.name === name || sameName(v.name, name));
    if (!entry) votes.push((entry = { name, people: 0, places: 0 }));
    entry[kind] += 1;
  };
  for (const [k, session] of sessions.entries()) {
    const typed = typedNames(session.summary);
    const found =
      typed ??
      (() => {
        const sentences = sentencesBySession
          .get(session)!
          .map((text, i) => ({ time: null, speaker: null, text, line: k * 1000 + i }));
        const cast = namedCast(sentences, 1);
        return { people: cast.characters, places: cast.places };
      })();
    for (const name of new Set(found.people)) vote(name, 'people');
    for (const name of new Set(found.places)) vote(name, 'places');
  }
  // Of names in as many sessions, the ones the summaries tell of most come first.
  const told = sessions.flatMap((s) => sentencesBySession.get(s)!);
  const ranked = votes
    // Written as a name ("Lava pools" is not "the lava").
    .map((v) => {
      const name = mentionPattern(v.name, true);
      return { ...v, told: told.filter((t) => name.test(t)).length };
    })
    .sort((a, b) => b.people + b.places - (a.people + a.places) || b.told - a.told);
  return {
    characters: ranked.filter((v) => v.people >= v.places).map((v) => v.name),
    places: ranked.filter((v) => v.places > v.people).map((v) => v.name),
  };
}

/** The open threads a session summary lists (its own section, or sentences that leave things open). */
function openThreadsOf(sessions: SessionDigest[]): string[] {
  const out: string[] = [];
  for (const s of [...sessions].reverse()) {
    const section = s.summary.split(/^### /m).find((x) => x.startsWith('Open threads'));
    const sentences = section
      ? summarySentences(section.replace(/^Open threads/, ''))
      : summarySentences(s.summary).filter((t) => THREAD_CUES.test(t) && tableTalk(t) <= 0.3);
    for (const t of sentences) if (out.length < 3 && !out.includes(t)) out.push(t);
  }
  return out;
}

/** One or two sentences of a session summary: the first, and a second naming a salient term. */
function keySentences(sentences: string[], salient: string[]): string {
  // A summary's story comes first; its lists (names, threads) are summed up above.
  const usable = sentences.filter(
    (s) => tokenize(s).length >= 3 && !/^(?:\*\*)?[\p{Lu}][\p{L}' ’-]*(?:\*\*)?$/u.test(s),
  );
  if (usable.length === 0) return sentences.length > 0 ? clip(sentences[0]!, 220) : '';
  // The story, not the rules or the table: "Do keep in mind, the Bag of Holding can hold
  // upwards 500 pounds", "Percy, I want you to make a tinkering check" (the dice and the like
  // are table talk already).
  const told = usable.filter(
    (s) =>
      !/\?["”’']?$/.test(s) && tableTalk(s) < 0.3 && !/\b(?:check|hit point|keep in mind|pounds)\b/i.test(s),
  );
  if (told.length > 0) usable.splice(0, usable.length, ...told);
  const first = usable[0]!;
  const second =
    usable.slice(1).find((s) => salient.some((t) => mentions(s, t))) ??
    (first.length < 120 ? usable[1] : undefined);
  return [first, second]
    .filter((s): s is string => Boolean(s))
    .map((s) => clip(s, 220))
    .join(' ');
}

export function joinList(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

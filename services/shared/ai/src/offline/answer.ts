/**
 * Offline chat answers about one transcript: the lines that best match the question (BM25
 * through selectPassages) quoted with their times and speakers. The chat drawer's emergency
 * ADVENTURE request gets adventure material built from the transcript instead: the names it
 * keeps mentioning and hooks from its latest unresolved threads.
 */
import { parseTranscriptLine, formatOffset, speakerLabel } from '@chronicler/contracts';
import type { ChatMessage } from '../engine.ts';
import { rankLines, tokenize } from '../retrieval.ts';
import { joinList } from './summarize.ts';
import {
  citation,
  clip,
  mentions,
  namedTerms,
  splitSentences,
  tableTalk,
  transcriptSentences,
  type Sentence,
} from './text.ts';

export const OFFLINE_ANSWER_NOTE =
  '_Offline answer (no AI model is configured): the transcript lines that best match your question._';
export const OFFLINE_ADVENTURE_NOTE =
  '_Offline adventure ideas (no AI model is configured): names and open threads found in the transcript._';

/** Quoted lines are cut to this length around the sentences that match. */
const MAX_QUOTE_CHARS = 400;
const MAX_QUOTES = 6;
/** Lines scoring under this share of the best line's score are left out. */
const WEAK_MATCH = 0.35;

/**
 * The chat drawer's emergency button sends a fixed request for adventure content; any
 * message shouting ADVENTURE, or asking for emergency adventure content, is taken as one.
 */
export function isAdventureRequest(question: string): boolean {
  return /\bADVENTURE\b/.test(question) || /\bemergency\b[\s\S]*\badventure\b/i.test(question);
}

interface Quote {
  time: string | null;
  speaker: string | null;
  text: string;
}

export function answerText(input: {
  transcriptName: string;
  transcript: string;
  question: string;
  history: ChatMessage[];
}): string {
  if (isAdventureRequest(input.question)) return adventureText(input.transcriptName, input.transcript);

  let query = input.question;
  let queryTerms = new Set(tokenize(query));
  // A follow-up like "and then?" has no terms of its own: it is about the previous question.
  if (queryTerms.size === 0) {
    const previous = [...input.history]
      .reverse()
      .find((m) => m.role === 'user' && tokenize(m.content).length > 0);
    if (previous) {
      query = `${previous.content} ${query}`;
      queryTerms = new Set(tokenize(query));
    }
  }
  const none = `${OFFLINE_ANSWER_NOTE}\n\nI couldn't find anything in ${input.transcriptName} that matches your question. Try rephrasing it with the names, places or words used in the session.`;
  if (queryTerms.size === 0) return none;

  // The best-ranked lines, without the weak ones that share only a common word with the question.
  const { ranked, entries } = rankLines(input.transcript, query);
  const top = ranked.filter((r) => r.score >= ranked[0]!.score * WEAK_MATCH).slice(0, MAX_QUOTES);
  if (top.length === 0) return none;
  const shown: Quote[] = [];
  for (const { pos } of top.sort((a, b) => a.pos - b.pos)) {
    const parsed = parseTranscriptLine(entries[pos]!.text);
    if (!parsed) continue;
    shown.push({
      time: parsed.seconds === null ? null : formatOffset(parsed.seconds),
      speaker: speakerLabel(parsed.speaker),
      text: excerpt(parsed.text, queryTerms),
    });
  }
  const intro =
    shown.length === 1
      ? `This is the line of ${input.transcriptName} that best matches your question:`
      : `These ${shown.length} lines of ${input.transcriptName} best match your question, in the order they were said:`;
  const quoted = shown.map((q) => `> ${citation(q, q.text)}`).join('\n\n');
  return `${OFFLINE_ANSWER_NOTE}\n\n${intro}\n\n${quoted}`;
}

/** The sentences of a long line that contain the question's terms (with '…' for the rest). */
function excerpt(text: string, queryTerms: Set<string>): string {
  if (text.length <= MAX_QUOTE_CHARS) return text;
  const sentences = splitSentences(text);
  const hits = sentences.flatMap((s, i) => (tokenize(s).some((t) => queryTerms.has(t)) ? [i] : []));
  if (hits.length === 0) return clip(text, MAX_QUOTE_CHARS);
  const parts: string[] = [];
  let size = 0;
  let last = -1;
  for (const i of hits) {
    const s = sentences[i]!;
    if (size > 0 && size + s.length > MAX_QUOTE_CHARS) break;
    if (i !== last + 1 && !parts.at(-1)?.endsWith('…')) parts.push('…');
    parts.push(clip(s, MAX_QUOTE_CHARS));
    size += s.length;
    last = i;
  }
  if (last < sentences.length - 1 && !parts.at(-1)!.endsWith('…')) parts.push('…');
  return parts.join(' ');
}

const PLACE_WORDS =
  /\b(?:city|town|village|inn|tavern|keep|castle|tower|temple|shrine|forest|woods|mountain|mountains|peak|river|lake|sea|isle|island|cave|caves|mine|mines|road|gate|district|market|hall|palace|citadel|ruins|quarry|underdark|swamp|desert|bay|port|harbor|harbour|vale|valley|house|manor|academy|library|tunnels?|depths|pits?)\b/i;
const PLACE_CONTEXT =
  /\b(?:in|at|to|from|into|toward|towards|through|near|across|reach|reached|reaches|enter|entered|enters|leave|left|leaves)\s+(?:the\s+)?$/i;
// Lines that leave something open: questions and obligations, promises, the missing.
export const THREAD_CUES =
  /\?|\b(?:must|need to|needs to|promised?|promises|swore|vow(?:ed|s)?|owe[sd]?|missing|search(?:ing)? for|looking for|rescue|hunt(?:ing)? (?:for|down)|track(?:ing)? down|plan(?:s|ning)? to|will return|yet to|unknown|mysterious|secret|rumou?rs?|warn(?:ed|ing)?|disappeared|kidnapped|stolen|cursed?)\b/i;

/**
 * Named terms split into likely places and likely characters. In a long transcript a name
 * must occur `minCount` times (default 2) to count; in short summaries once is enough.
 */
export function namedCast(sentences: Sentence[], minCount = 2): { characters: string[]; places: string[] } {
  // Speaker tags are the people at the table, not the story's characters.
  const speakers = new Set(sentences.flatMap((s) => (s.speaker ? [s.speaker.toLowerCase()] : [])));
  const names = namedTerms(
    sentences.map((s) => s.text),
    speakers,
  ).filter((n) => n.count >= minCount);
  const placeHits = new Map<string, number>();
  for (const s of sentences) {
    for (const { term } of names.slice(0, 60)) {
      const at = s.text.indexOf(term);
      if (at >= 0 && PLACE_CONTEXT.test(s.text.slice(Math.max(0, at - 12), at))) {
        placeHits.set(term, (placeHits.get(term) ?? 0) + 1);
      }
    }
  }
  const places: string[] = [];
  const characters: string[] = [];
  for (const { term, count } of names) {
    const isPlace =
      PLACE_WORDS.test(term) || (placeHits.get(term) ?? 0) >= Math.max(Math.min(2, minCount), count / 5);
    if (isPlace) places.push(term);
    else characters.push(term);
  }
  return { characters, places };
}

/**
 * The latest sentences that leave something open, newest first, one per line. Sentences
 * naming one of `names` are preferred: at a table most open questions are about rules.
 */
export function openThreads(sentences: Sentence[], limit: number, names: string[] = []): Sentence[] {
  const candidates = sentences.filter(
    (s) => THREAD_CUES.test(s.text) && tokenize(s.text).length >= 4 && tableTalk(s.text) <= 0.3,
  );
  const named = candidates.filter((s) => names.some((n) => mentions(s.text, n)));
  const out: Sentence[] = [];
  const seen = new Set<number>();
  for (const pool of [named, candidates]) {
    for (let i = pool.length - 1; i >= 0 && out.length < limit; i--) {
      const s = pool[i]!;
      if (seen.has(s.line)) continue;
      seen.add(s.line);
      out.push(s);
    }
  }
  return out.sort((a, b) => b.line - a.line);
}

export function adventureText(name: string, transcript: string): string {
  const sentences = transcriptSentences(transcript);
  const { characters, places } = namedCast(sentences);
  const threads = openThreads(sentences, 3, [...characters.slice(0, 12), ...places.slice(0, 8)]);
  const lines = [OFFLINE_ADVENTURE_NOTE, ''];
  if (sentences.length === 0) {
    lines.push(`${name} has no transcript text to build an adventure from.`);
    return lines.join('\n');
  }
  lines.push(`Quick adventure material from ${name}:`, '');
  lines.push(
    `**Characters:** ${characters.length > 0 ? characters.slice(0, 8).join(', ') : 'no recurring names found'}`,
  );
  lines.push(
    `**Places:** ${places.length > 0 ? places.slice(0, 6).join(', ') : 'no recurring places found'}`,
  );
  lines.push('', '**Hooks:**');
  const who = (k: number) => characters[k % Math.max(1, characters.length)] ?? 'a stranger who was there';
  const where = (k: number) => places[k % Math.max(1, places.length)] ?? 'the last place the party rested';
  const templates = [
    (k: number) => `${who(k)} turns up with news about it, and wants the party's help before nightfall.`,
    (k: number) => `Someone at ${where(k)} knows more than they let on, and is willing to trade for it.`,
    (k: number) =>
      `It comes back to bite the party: ${who(k + 1)} is in trouble because of it, near ${where(k + 1)}.`,
  ];
  if (threads.length === 0) {
    lines.push(
      `1. ${who(0)} needs the party urgently at ${where(0)}.`,
      `2. A rival of ${who(1)} makes a move while the party is distracted.`,
      `3. Something hidden at ${where(1)} surfaces, and everyone wants it.`,
    );
  } else {
    for (const [k, t] of threads.entries()) {
      lines.push(
        `${k + 1}. Unresolved: "${clip(t.text, 180)}" (${citation(t, '').replace(/:\s*$/, '').trim() || 'transcript'}). ${templates[k]!(k)}`,
      );
    }
  }
  const cast = joinList([...characters.slice(0, 2), ...places.slice(0, 1)]);
  if (cast) lines.push('', `Start in the middle of the action, with ${cast} on stage in the first scene.`);
  return lines.join('\n');
}

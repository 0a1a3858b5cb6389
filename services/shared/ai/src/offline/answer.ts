/**
 * Offline chat: retrieval, not writing. The transcript's lines are indexed with MiniSearch
 * (BM25) under three fields: the line's own words, its neighbours' words (an answer often
 * sits in the line after the one that repeats the question's words) and its speaker with the
 * character they play. The reply quotes the best passages with their times, best first.
 */
import MiniSearch from 'minisearch';
import type { AnswerInput, SpeakerCharacter } from '../engine.ts';
import { cut, offlineText, readLines, speakersByWords, term, type Line } from './lines.ts';

/** Passages quoted per answer, and the lines each keeps before and after its matching line. */
const PASSAGES = 4;
const BEFORE = 1;
const AFTER = 2;

interface Doc {
  id: number;
  text: string;
  near: string;
  speaker: string;
}

/** The positions of the best matching lines for `query`, best first. */
function rankLines(lines: Line[], query: string, characters: SpeakerCharacter[] = []): number[] {
  const playedBy = new Map<string, string[]>();
  for (const c of characters)
    playedBy.set(c.speaker.toLowerCase(), [...(playedBy.get(c.speaker.toLowerCase()) ?? []), c.character]);
  const index = new MiniSearch<Doc>({
    fields: ['text', 'near', 'speaker'],
    processTerm: (t) => term(t),
    searchOptions: { boost: { text: 2, near: 0.6, speaker: 1 }, combineWith: 'OR' },
  });
  index.addAll(
    lines.map((l, i) => ({
      id: i,
      text: l.text,
      near: [lines[i - 1]?.text, lines[i + 1]?.text, lines[i + 2]?.text].filter(Boolean).join(' '),
      speaker: [l.speaker ?? '', ...(playedBy.get((l.speaker ?? '').toLowerCase()) ?? [])].join(' '),
    })),
  );
  return index.search(query).map((r) => r.id as number);
}

/** The windows around the best lines, merged where they touch, best first. */
function passagesFor(lines: Line[], ranked: number[], count = PASSAGES): Line[][] {
  const windows: [number, number][] = [];
  for (const pos of ranked) {
    if (windows.length >= count) break;
    const from = Math.max(0, pos - BEFORE);
    const to = Math.min(lines.length - 1, pos + AFTER);
    const touching = windows.find(([a, b]) => from <= b + 1 && to >= a - 1);
    if (touching) {
      touching[0] = Math.min(touching[0], from);
      touching[1] = Math.max(touching[1], to);
    } else windows.push([from, to]);
  }
  return windows.map(([a, b]) => lines.slice(a, b + 1));
}

const passageText = (passage: Line[]) =>
  passage
    .map((l) => `> ${l.time ? `[${l.time}] ` : ''}${l.speaker ? `${l.speaker}: ` : ''}${cut(l.text, 600)}`)
    .join('\n>\n');

/** Asking who runs the game: at a table that is whoever does most of the talking. */
const RUNS_THE_GAME = /\b(game ?master|dungeon ?master|gm|dm|narrator|runs? the game|storyteller)\b/i;

export function answerText(input: AnswerInput): string {
  const lines = readLines(input.transcript);
  if (lines.length === 0) return offlineText('The transcript is empty, so there is nothing to quote.');
  // A follow-up ("and then?") names little: the previous question lends it its words.
  const earlier = input.history.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const own = input.question.split(/\s+/).filter((w) => term(w)).length;
  const query = own >= 2 || !earlier ? input.question : `${input.question} ${earlier}`;
  const out: string[] = [];
  if (RUNS_THE_GAME.test(input.question)) {
    const [top, next] = speakersByWords(lines);
    const all = speakersByWords(lines).reduce((n, s) => n + s.words, 0);
    if (top && (!next || top.words > next.words * 1.5)) {
      const first = lines.find((l) => l.speaker === top.speaker)!;
      out.push(
        `${top.speaker} says ${Math.round((100 * top.words) / all)}% of the words in this session, far more than anyone else: at a table that is usually the game master.`,
      );
      out.push(passageText([first]));
    }
  }
  const passages = passagesFor(lines, rankLines(lines, query, input.characters));
  if (passages.length === 0 && out.length === 0) {
    return offlineText('No line of the transcript matches the words of the question.');
  }
  if (passages.length > 0)
    out.push('The passages of the transcript that best match the question, best first:');
  for (const p of passages) out.push(passageText(p));
  return offlineText(out.join('\n\n'));
}

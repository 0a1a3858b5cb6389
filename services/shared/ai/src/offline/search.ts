/**
 * Retrieval for offline answers: BM25 (MiniSearch) over windows of transcript lines. Each line
 * is a document with three fields: its own text, its speaker (with the character the speaker
 * plays, so a question naming a character finds the player's lines) and its neighbours' text
 * (answers often sit in the line after the one that matches the question's words). Terms are
 * lowercased, stop words dropped and Porter-stemmed, the same for lines and questions.
 */
import { formatOffset, parseTranscriptLines, speakerLabel } from '@chronicler/contracts';
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import { STOP_WORDS } from '../retrieval.ts';
import type { CharacterMap } from './characters.ts';

export interface Line {
  /** Position among the transcript's non-blank lines. */
  pos: number;
  time: string | null;
  speaker: string | null;
  text: string;
}

export interface LineHit {
  pos: number;
  score: number;
  /** The question's terms (stemmed) this window matched. */
  terms: string[];
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** A term as indexed and searched: lowercase, no stop word, Porter stem; null to drop it. */
export function searchTerm(term: string): string | null {
  const word = term.toLowerCase().replace(/’/g, "'").replace(/'s$/, '');
  if (STOP_WORDS.has(word) || word.length < 2) return null;
  return /^\d+$/.test(word) ? word : stemmer(word);
}

export function searchTerms(text: string): string[] {
  return [...text.matchAll(WORD)].flatMap((m) => searchTerm(m[0]) ?? []);
}

export function transcriptLines(transcript: string): Line[] {
  return parseTranscriptLines(transcript)
    .filter((l) => l.text.trim())
    .map((l, pos) => ({
      pos,
      time: l.seconds === null ? null : formatOffset(l.seconds),
      speaker: speakerLabel(l.speaker),
      text: l.text.trim(),
    }));
}

/** Words a table uses for the same thing, so "horse" finds "You hop on your mustang". */
const TABLE_SYNONYMS: Record<string, string[]> = {
  horse: ['mustang', 'steed', 'mount', 'pony', 'stallion', 'mare'],
  gold: ['coin', 'coins', 'gp', 'platinum', 'silver'],
  money: ['gold', 'coin', 'coins', 'gp'],
  cost: ['price', 'purchase', 'pay', 'gold'],
  price: ['cost', 'purchase', 'pay', 'gold'],
  kill: ['slay', 'slain', 'dead', 'die', 'dies'],
  die: ['dead', 'dies', 'killed', 'unconscious'],
  sword: ['blade', 'longsword', 'greatsword'],
  inn: ['tavern'],
  tavern: ['inn', 'bar'],
  heal: ['healing', 'cure', 'revive'],
  boat: ['ship', 'vessel'],
  ship: ['boat', 'vessel'],
};

/** Neighbours kept in a line's context field: one before, two after. */
const BEFORE = 1;
const AFTER = 2;

export class LineIndex {
  private readonly index: MiniSearch<{ id: number; text: string; speaker: string; context: string }>;

  constructor(
    readonly lines: Line[],
    private readonly characters: CharacterMap,
  ) {
    this.index = new MiniSearch({
      fields: ['text', 'speaker', 'context'],
      tokenize: (text) => [...text.matchAll(WORD)].map((m) => m[0]),
      processTerm: (term) => searchTerm(term) ?? null,
      searchOptions: { boost: { text: 2, speaker: 1.5, context: 0.6 }, combineWith: 'OR' },
    });
    this.index.addAll(
      lines.map((l) => ({
        id: l.pos,
        text: l.text,
        speaker: [l.speaker ?? '', characters.characterOf(l.speaker) ?? ''].join(' '),
        context: lines
          .slice(Math.max(0, l.pos - BEFORE), l.pos + AFTER + 1)
          .filter((o) => o.pos !== l.pos)
          .map((o) => o.text)
          .join(' '),
      })),
    );
  }

  /** The best windows for a question, best first. */
  search(question: string, limit = 8): LineHit[] {
    // A question naming a character also asks about its player's lines.
    const players = this.characters.named(question).map((c) => c.speaker);
    const words = [...question.matchAll(WORD)].map((m) => m[0].toLowerCase());
    const related = words.flatMap((w) => TABLE_SYNONYMS[w.replace(/s$/, '')] ?? []);
    const query = [question, ...players, ...related].join(' ');
    return this.index
      .search(query)
      .slice(0, limit)
      .map((r) => ({ pos: r.id as number, score: r.score, terms: r.terms }));
  }
}

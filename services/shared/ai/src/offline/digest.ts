/**
 * The offline digest of a session: not prose, the transcript's own lines. Key moments are one
 * quoted line per stretch of the session (the line nearest its stretch's topic: TF-IDF
 * centroid), with speaker and time link; then people and places by how often and how they are
 * named; then questions left open (late questions on what the session was about).
 */
import { inferCharacterMap, SUMMARY_MAX } from '@chronicler/contracts';
import type { SessionSummaryInput } from '../engine.ts';
import { partyNames } from '../party.ts';
import { offlineText, quoteLine, readLines, terms, wordCount, type Line } from './lines.ts';
import { namedThings } from './names.ts';

const MIN_MOMENT_WORDS = 8;

/** One key moment per about 15 minutes (or 40 lines without times), 4 to 12 of them. */
function stretchCount(lines: Line[]): number {
  const last = lines.findLast((l) => l.time)?.time;
  const minutes = last ? last.split(':').reduce((n, p) => n * 60 + Number(p), 0) / 60 : 0;
  const by = minutes > 0 ? minutes / 15 : lines.length / 40;
  return Math.max(Math.min(4, lines.length), Math.min(12, Math.round(by)));
}

/** Inverse document frequency of each term over the lines. */
function idfOf(lineTerms: string[][]): Map<string, number> {
  const df = new Map<string, number>();
  for (const ts of lineTerms) for (const t of new Set(ts)) df.set(t, (df.get(t) ?? 0) + 1);
  const n = lineTerms.length;
  return new Map([...df].map(([t, d]) => [t, Math.log(1 + n / d)]));
}

/** The lines of a stretch nearest its topic (cosine to the stretch's TF-IDF centroid), best first. */
function central(
  lines: Line[],
  lineTerms: string[][],
  idf: Map<string, number>,
  from: number,
  to: number,
): number[] {
  const centroid = new Map<string, number>();
  for (let i = from; i < to; i++)
    for (const t of lineTerms[i]!) centroid.set(t, (centroid.get(t) ?? 0) + idf.get(t)!);
  const scored: { i: number; score: number }[] = [];
  for (let i = from; i < to; i++) {
    const words = wordCount(lines[i]!.text);
    if (words < MIN_MOMENT_WORDS) continue;
    let dot = 0;
    let norm = 0;
    for (const t of new Set(lineTerms[i])) {
      const w = idf.get(t)!;
      dot += w * (centroid.get(t) ?? 0);
      norm += w * w;
    }
    // Longer lines carry more of what happened; questions are listed apart.
    const shape = Math.min(1, words / 20) * (lines[i]!.text.trim().endsWith('?') ? 0.5 : 1);
    if (norm > 0) scored.push({ i, score: (dot / Math.sqrt(norm)) * shape });
  }
  return scored.sort((a, b) => b.score - a.score).map((s) => s.i);
}

export function sessionDigest(input: SessionSummaryInput): string {
  const lines = readLines(input.transcript);
  if (lines.length === 0) return offlineText('The transcript is empty.');
  const characters = input.characters?.length ? input.characters : inferCharacterMap(input.transcript);
  const party = partyNames(input.transcript, characters);
  const lineTerms = lines.map((l) => terms(l.text));
  const idf = idfOf(lineTerms);
  const quote = (l: Line, max = 260) => quoteLine(l, { sessionId: input.id, max });

  const k = stretchCount(lines);
  const moments: Line[] = [];
  for (let s = 0; s < k; s++) {
    const from = Math.floor((s * lines.length) / k);
    const to = Math.floor(((s + 1) * lines.length) / k);
    const best = central(lines, lineTerms, idf, from, to)[0];
    if (best !== undefined) moments.push(lines[best]!);
  }

  const named = namedThings(lines, party);
  const thing = (n: (typeof named)[number]) =>
    `**${n.name}** (named ${n.count} times), first: ${quote(n.first, 200)}`;
  const people = named.filter((n) => n.kind === 'person').slice(0, 10);
  const places = named.filter((n) => n.kind === 'place').slice(0, 8);

  // Questions left open: asked in the second half, naming someone or somewhere the session
  // talks about (a question's own sentence); the ones asking who, where or why first.
  const topical = named.map((n) => n.name.toLowerCase());
  const questions = lines
    .filter((l) => l.pos >= lines.length * 0.5)
    .flatMap((l) =>
      (l.text.match(/[^.!?]*\?/g) ?? [])
        .map((q) => q.trim())
        .filter((q) => wordCount(q) >= 3 && topical.some((name) => q.toLowerCase().includes(name)))
        .map((q) => ({
          l: { ...l, text: q },
          score:
            terms(q).reduce((n, t) => n + (idf.get(t) ?? 0), 0) +
            (/\b(who|where|why|what happened)\b/i.test(q) ? 5 : 0),
        })),
    )
    .sort((a, b) => b.score - a.score)
    .slice(0, 5)
    .sort((a, b) => a.l.pos - b.l.pos);

  const list = (items: string[]) =>
    items.length > 0 ? items.map((i) => `- ${i}`).join('\n') : '- None found.';
  const partyLine = characters.length
    ? `The party: ${characters.map((c) => `${c.character} (${c.speaker})`).join(', ')}.`
    : '';
  const sections = [
    `### Key moments\n${list(moments.map((l) => quote(l)))}`,
    `### People\n${partyLine ? `${partyLine}\n\n` : ''}${list(people.map(thing))}`,
    `### Places\n${list(places.map(thing))}`,
    `### Open questions\n${list(questions.map((q) => quote(q.l, 200)))}`,
  ];
  let text = offlineText(sections.join('\n\n'));
  // Within the summary limit: the longest quotes go first.
  while (text.length > SUMMARY_MAX && moments.length > 4) {
    moments.pop();
    sections[0] = `### Key moments\n${list(moments.map((l) => quote(l)))}`;
    text = offlineText(sections.join('\n\n'));
  }
  return text.slice(0, SUMMARY_MAX);
}

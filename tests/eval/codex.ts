// `pnpm eval`'s codex section: the offline codex of each CRD3 episode (and of each hand-written
// game) read as a campaign of one session, as the product reads it (the Who Is Who map it would suggest, no
// map set by hand), against the names the human synopsis gives (codex-reference.ts):
// - people: the entries of kind person, how many are people the synopsis or a judge names
//   (NPCs), how many are the party (listed apart, so wrong here), how many are not people at all
//   (a spell, rule, item, group, song or the show: the synopsis's own names, or a place), and the
//   ones nobody judged yet (printed, to be judged by hand);
// - recall: of the NPCs and the places the synopsis names, how many the codex lists (any kind),
//   and how many with the right kind.
// Names match when equal or one holds the other's words (titles aside), or differ by one letter
// (two in long names): the wiki and the transcripts spell some names differently (Belan, Balan).
// Tuned and untuned episodes are reported apart (see codex-reference.ts for which is which).
import { inferCharacterMap, type CodexFinding } from '@chronicler/contracts';
import { extractCodexOffline } from '../../services/shared/ai/src/offline/codex.ts';
import type { Crd3Episode } from '../support/crd3.ts';
import { CODEX_REFERENCE, type CodexReference } from './codex-reference.ts';
import { timedEpisode } from './data.ts';
import { bostonTranscript } from './boston-1925.ts';
import { homeGameTranscript } from './home-game.ts';
import { kestrelTranscript } from './kestrel-run.ts';
import { tallowTranscript } from './tallow-score.ts';
import { wolfjawTranscript } from './wolfjaw-pass.ts';
import { manchesterTranscript } from './manchester-nights.ts';
import { rustwaterTranscript } from './rustwater-blues.ts';
import { gullPointTranscript } from './gull-point.ts';
import { jollyPancakeTranscript } from './jolly-pancake.ts';
import { velvetAlibiTranscript } from './velvet-alibi.ts';
import { kiriRiverTranscript } from './kiri-river.ts';

/** The hand-written sessions, by their reference's `episode`; the rest are CRD3 episodes. */
const SCRIPTED: Record<string, () => { transcript: string }> = {
  home: homeGameTranscript,
  'boston-1925': bostonTranscript,
  'kestrel-run': kestrelTranscript,
  'tallow-score': tallowTranscript,
  'wolfjaw-pass': wolfjawTranscript,
  'manchester-nights': manchesterTranscript,
  'rustwater-blues': rustwaterTranscript,
  'gull-point': gullPointTranscript,
  'jolly-pancake': jollyPancakeTranscript,
  'velvet-alibi': velvetAlibiTranscript,
  'kiri-river': kiriRiverTranscript,
};

const TITLES = new Set([
  'lady',
  'lord',
  'sir',
  'king',
  'queen',
  'the',
  'of',
  'a',
  'an',
  'huntmaster',
  'flamespeaker',
  'arcanist',
]);

const words = (s: string): string[] =>
  s
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .replace(/[^\p{L}\p{N}' ]/gu, ' ')
    .split(/\s+/)
    .filter((w) => w && !TITLES.has(w));

function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return d[b.length]!;
}

const sameWord = (a: string, b: string) =>
  a === b ||
  (Math.min(a.length, b.length) >= 4 && distance(a, b) <= (Math.min(a.length, b.length) >= 8 ? 2 : 1));

/** Whether an entry's name (or alias) and a reference name name the same one. */
function matches(name: string, ref: string): boolean {
  const a = words(name);
  const b = words(ref);
  if (a.length === 0 || b.length === 0) return false;
  const within = (x: string[], y: string[]) => x.every((w) => y.some((v) => sameWord(w, v)));
  return within(a, b) || within(b, a);
}

const namesOf = (f: CodexFinding) => [f.name, ...f.aliases];
const listed = (f: CodexFinding, refs: string[][]) =>
  refs.some((r) => r.some((ref) => namesOf(f).some((n) => matches(n, ref))));

interface CodexScore {
  episode: string;
  tuned: boolean;
  people: number;
  npcs: number;
  party: number;
  notPeople: string[];
  unjudged: string[];
  npcRecall: [number, number];
  npcKind: number;
  placeRecall: [number, number];
  placeKind: number;
  missed: string[];
  seconds: number;
}

function score(ref: CodexReference, transcript: string): CodexScore {
  const started = performance.now();
  const characters = inferCharacterMap(transcript);
  const found = extractCodexOffline({ name: ref.episode, transcript, characters });
  const seconds = (performance.now() - started) / 1000;
  const people = found.filter((f) => f.kind === 'person');
  const isNpc = (f: CodexFinding) =>
    listed(f, ref.npcs) ||
    listed(
      f,
      ref.alsoPeople.map((p) => [p]),
    );
  const isParty = (f: CodexFinding) => listed(f, ref.party);
  const isNot = (f: CodexFinding) =>
    listed(f, ref.places) ||
    listed(
      f,
      ref.notPeople.map((p) => [p]),
    );
  const npcs = people.filter((f) => isNpc(f) && !isParty(f));
  const party = people.filter((f) => isParty(f) && !isNpc(f));
  const notPeople = people.filter((f) => !isNpc(f) && !isParty(f) && isNot(f));
  const unjudged = people.filter((f) => !isNpc(f) && !isParty(f) && !isNot(f));
  const recall = (refs: string[][], kind: CodexFinding['kind']) => {
    const hits = refs.filter((r) => found.some((f) => listed(f, [r])));
    const kinded = refs.filter((r) => found.some((f) => f.kind === kind && listed(f, [r])));
    return { hits, kinded };
  };
  const n = recall(ref.npcs, 'person');
  const p = recall(ref.places, 'place');
  return {
    episode: ref.episode,
    tuned: ref.tuned,
    people: people.length,
    npcs: npcs.length,
    party: party.length,
    notPeople: notPeople.map((f) => f.name),
    unjudged: unjudged.map((f) => `${f.name} (${f.count})`),
    npcRecall: [n.hits.length, ref.npcs.length],
    npcKind: n.kinded.length,
    placeRecall: [p.hits.length, ref.places.length],
    placeKind: p.kinded.length,
    missed: [...ref.npcs, ...ref.places]
      .filter((r) => !n.hits.includes(r) && !p.hits.includes(r))
      .map((r) => r[0]!),
    seconds,
  };
}

export function runCodexEval(filter?: (ref: CodexReference) => boolean): CodexScore[] {
  return CODEX_REFERENCE.filter(filter ?? (() => true)).map((ref) =>
    score(ref, SCRIPTED[ref.episode]?.().transcript ?? timedEpisode(ref.episode as Crd3Episode).transcript),
  );
}

const pct = (a: number, b: number) => (b === 0 ? '-' : `${a}/${b} (${Math.round((100 * a) / b)}%)`);

export function printCodexEval(scores: CodexScore[]): void {
  for (const tuned of [true, false]) {
    const rows = scores.filter((s) => s.tuned === tuned);
    if (rows.length === 0) continue;
    console.log(
      `\ncodex, ${tuned ? 'TUNED on (written looking at these)' : 'UNTUNED (never looked at while writing it)'}:`,
    );
    console.table(
      rows.map((s) => ({
        episode: s.episode,
        'people that are NPCs': pct(s.npcs, s.people),
        'party as people': s.party,
        'not people': s.notPeople.length,
        unjudged: s.unjudged.length,
        'NPCs listed': pct(...s.npcRecall),
        'as person': s.npcKind,
        'places listed': pct(...s.placeRecall),
        'as place': s.placeKind,
        seconds: s.seconds.toFixed(1),
      })),
    );
    const sum = (f: (s: CodexScore) => number) => rows.reduce((n, s) => n + f(s), 0);
    console.log(
      `all ${tuned ? 'tuned' : 'untuned'}: people that are NPCs ${pct(
        sum((s) => s.npcs),
        sum((s) => s.people),
      )}, ` +
        `not people ${sum((s) => s.notPeople.length)}, party as people ${sum((s) => s.party)}, unjudged ${sum((s) => s.unjudged.length)}; ` +
        `NPCs listed ${pct(
          sum((s) => s.npcRecall[0]),
          sum((s) => s.npcRecall[1]),
        )}, ` +
        `places listed ${pct(
          sum((s) => s.placeRecall[0]),
          sum((s) => s.placeRecall[1]),
        )}`,
    );
    for (const s of rows) {
      if (s.notPeople.length) console.log(`  ${s.episode} not people: ${s.notPeople.join(', ')}`);
      if (s.unjudged.length) console.log(`  ${s.episode} unjudged people: ${s.unjudged.join(', ')}`);
      if (s.missed.length) console.log(`  ${s.episode} not listed: ${s.missed.join(', ')}`);
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv.slice(2);
  printCodexEval(runCodexEval(only.length ? (r) => only.includes(r.episode) : undefined));
}

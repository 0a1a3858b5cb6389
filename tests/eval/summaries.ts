// Summary measures: ROUGE on the CRD3 aligned pairs (offline engine, two baselines), and whole
// episodes against their wiki synopses (which synopsis events appear, which hours are covered).
import { summarizeSessionText, summarySentences } from '../../services/shared/ai/src/offline/summarize.ts';
import { tokenize } from '../../services/shared/ai/src/retrieval.ts';
import { splitSentences } from '../../services/shared/ai/src/offline/text.ts';
import { inferCharacterMap, type InferredCharacterLink } from '@chronicler/contracts';
import { SALIENCE, type SalienceModel } from '../../services/shared/ai/src/offline/salience.ts';
import type { TrainingPair } from './fit.ts';
import { crd3Synopsis, type Crd3Episode } from '../support/crd3.ts';
import { alignedPairs, timedEpisode } from './data.ts';
import { meanRouge, rouge, type Rouge } from './rouge.ts';

/** The summary's prose: the offline notice, headings and time links left out. */
export function prose(summary: string): string {
  const sections = summary.split(/^### /m);
  const happened = sections.find((x) => x.startsWith('What happened'));
  return summarySentences(happened ? happened.replace(/^What happened/, '') : summary).join(' ');
}

/** Baseline: the window's first two sentences. */
export function lead2(turns: string[]): string {
  return turns
    .flatMap((t) => splitSentences(t))
    .slice(0, 2)
    .join(' ');
}

/** Baseline: the two sentences whose content words are most frequent in the window (in order). */
export function topFrequency(turns: string[]): string {
  const sentences = turns.flatMap((t) => splitSentences(t));
  const counts = new Map<string, number>();
  for (const s of sentences) for (const t of tokenize(s)) counts.set(t, (counts.get(t) ?? 0) + 1);
  const scored = sentences.map((s, i) => {
    const terms = tokenize(s);
    return { i, s, score: terms.length ? terms.reduce((n, t) => n + counts.get(t)!, 0) / terms.length : 0 };
  });
  return scored
    .filter((x) => tokenize(x.s).length >= 3)
    .sort((a, b) => b.score - a.score)
    .slice(0, 2)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.s)
    .join(' ');
}

export interface AlignedResult {
  pairs: number;
  offline: Rouge;
  lead2: Rouge;
  topFrequency: Rouge;
  /** Mean words of the offline summaries and of the references. */
  words: number;
  referenceWords: number;
}

const characterMaps = new Map<Crd3Episode, InferredCharacterLink[]>();

/** The campaign's speaker-to-character map, as the group would hold it (inferred from the episode). */
function episodeCharacters(e: Crd3Episode): InferredCharacterLink[] {
  if (!characterMaps.has(e)) characterMaps.set(e, inferCharacterMap(timedEpisode(e).transcript));
  return characterMaps.get(e)!;
}

/** The aligned pairs of these episodes with their campaign's map, to fit the word-importance weights on. */
export function trainingPairs(episodes: readonly Crd3Episode[]): TrainingPair[] {
  return episodes.flatMap((e) => alignedPairs(e).map((pair) => ({ pair, characters: episodeCharacters(e) })));
}

/**
 * ROUGE of the offline summaries of these episodes' aligned pairs (each episode's with the
 * word-importance weights `salienceFor` gives it, the shipped ones by default) and the baselines'.
 */
export function evaluateAligned(
  episodes: readonly Crd3Episode[],
  salienceFor: (e: Crd3Episode) => SalienceModel = () => SALIENCE,
): AlignedResult {
  const off: Rouge[] = [];
  const l2: Rouge[] = [];
  const tf: Rouge[] = [];
  let words = 0;
  let refWords = 0;
  let n = 0;
  for (const e of episodes) {
    const characters = episodeCharacters(e);
    const salience = salienceFor(e);
    for (const p of alignedPairs(e)) {
      const summary = prose(summarizeSessionText(e, p.transcript, { characters, salience }));
      off.push(rouge(summary, p.reference));
      l2.push(rouge(lead2(p.turnTexts), p.reference));
      tf.push(rouge(topFrequency(p.turnTexts), p.reference));
      words += summary.split(/\s+/).length;
      refWords += p.reference.split(/\s+/).length;
      n += 1;
    }
  }
  return {
    pairs: n,
    offline: meanRouge(off),
    lead2: meanRouge(l2),
    topFrequency: meanRouge(tf),
    words: words / (n || 1),
    referenceWords: refWords / (n || 1),
  };
}

export interface EpisodeResult {
  episode: Crd3Episode;
  hours: number;
  hoursCovered: number;
  events: number;
  eventsFound: number;
  chars: number;
}

const TIME = /\[\[?(\d{2}):(\d{2}):(\d{2})\]/g;

/**
 * A synopsis sentence is an event; it appears in the summary when one line of the summary
 * (a scene's bullet, a section's item) holds at least 30% of its content words (stemmed).
 */
export function evaluateEpisode(episode: Crd3Episode): EpisodeResult {
  const ep = timedEpisode(episode);
  const summary = summarizeSessionText(episode, ep.transcript);
  const synopsis = crd3Synopsis(episode, {
    skipHeadings: ['Announcements', 'Pre-Show', 'Break', 'Featured Characters'],
  });
  const events = synopsis
    .split('\n')
    .flatMap((l) => splitSentences(l))
    .filter((s) => tokenize(s).length >= 4);
  const bulletTerms = summary
    .split('\n')
    .filter((l) => l.startsWith('- '))
    .map((l) => new Set(tokenize(l.replace(/\[\[[^\]]*\]\]\([^)]*\)/g, ''))));
  let found = 0;
  for (const ev of events) {
    const terms = [...new Set(tokenize(ev))];
    const best = Math.max(0, ...bulletTerms.map((b) => terms.filter((t) => b.has(t)).length / terms.length));
    if (best >= 0.3) found += 1;
  }
  // Hours of play: a last part-hour counts when it lasts ten minutes or more.
  const hours = Math.floor(ep.durationSeconds / 3600) + (ep.durationSeconds % 3600 >= 600 ? 1 : 0);
  const covered = new Set<number>();
  const whatHappened = summary.split('### ')[1] ?? summary;
  for (const m of whatHappened.matchAll(TIME)) covered.add(Number(m[1]));
  return {
    episode,
    hours,
    hoursCovered: [...covered].filter((h) => h < hours).length,
    events: events.length,
    eventsFound: found,
    chars: summary.length,
  };
}

// Real session transcripts for fixtures: episodes of Critical Role from the CRD3 dataset
// (Rameshkumar and Bailey, ACL 2020), licensed CC BY-SA 4.0; see ../shared/data/crd3.
import { formatTranscriptLine } from '@chronicler/contracts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './system.ts';

/** The project's shared folder sits beside the checkout (CI clones it there too); CRD3_DIR overrides. */
export const CRD3_DIR = process.env.CRD3_DIR ?? path.resolve(repoRoot, '../shared/data/crd3');
export const CRD3_EPISODES = ['C1E001', 'C1E005', 'C1E022', 'C1E056', 'C2E003', 'C2E030'] as const;
export type Crd3Episode = (typeof CRD3_EPISODES)[number];

export interface Crd3Turn {
  speaker: string;
  text: string;
}

interface RawEpisode {
  METADATA: { 'Wiki Blurb'?: { content: string }[]; Synopsis?: unknown };
  TURNS: { NAMES: string[]; UTTERANCES: string[]; NUMBER: number }[];
}

const cache = new Map<Crd3Episode, RawEpisode>();
function load(episode: Crd3Episode): RawEpisode {
  let raw = cache.get(episode);
  if (!raw) {
    raw = JSON.parse(readFileSync(path.join(CRD3_DIR, `${episode}.json`), 'utf8')) as RawEpisode;
    cache.set(episode, raw);
  }
  return raw;
}

/** The episode's turns: one speaker (names joined with ' and ') and the turn's text. */
export function crd3Turns(episode: Crd3Episode): Crd3Turn[] {
  return load(episode).TURNS.map((t) => ({
    speaker: t.NAMES.join(' and '),
    text: t.UTTERANCES.join(' ').replace(/\s+/g, ' ').trim(),
  }));
}

/** The fan wiki's short blurb of the episode (a human-written reference summary). */
export function crd3Blurb(episode: Crd3Episode): string {
  return (load(episode).METADATA['Wiki Blurb'] ?? []).map((b) => b.content.trim()).join('\n');
}

/**
 * The episode as transcript text. `timed` writes the stored form `[HH:MM:SS] SPEAKER: text`
 * with times spread at `secondsPerTurn`; otherwise pasted-style `SPEAKER: text` lines.
 * `maxChars` cuts at a line boundary.
 */
export function crd3Transcript(
  episode: Crd3Episode,
  opts: { timed?: boolean; secondsPerTurn?: number; maxChars?: number; turns?: number } = {},
): string {
  const per = opts.secondsPerTurn ?? 4;
  const lines: string[] = [];
  let size = 0;
  const turns = crd3Turns(episode).slice(0, opts.turns);
  for (const [i, t] of turns.entries()) {
    const line = opts.timed
      ? formatTranscriptLine({ seconds: i * per, speaker: t.speaker, text: t.text })
      : `${t.speaker}: ${t.text}`;
    if (opts.maxChars !== undefined && size + line.length + 1 > opts.maxChars) break;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

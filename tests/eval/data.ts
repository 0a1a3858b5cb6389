// CRD3 material for the evaluation: aligned summary pairs and whole episodes as transcripts.
// Critical Role Dungeons and Dragons Dataset (Rameshkumar and Bailey, ACL 2020), CC BY-SA 4.0;
// see ../shared/data/crd3/LICENSE.
import { formatTranscriptLine } from '@chronicler/contracts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CRD3_DIR, type Crd3Episode } from '../support/crd3.ts';

interface RawTurn {
  NAMES: string[];
  UTTERANCES: string[];
  NUMBER: number;
}

/** Speaking pace used to give CRD3 turns realistic times: about 14 characters a second. */
const CHARS_PER_SECOND = 14;

function turnText(t: RawTurn): string {
  return t.UTTERANCES.join(' ').replace(/\s+/g, ' ').trim();
}

function timedLines(turns: RawTurn[], startSeconds = 0): { lines: string[]; seconds: number[] } {
  const lines: string[] = [];
  const seconds: number[] = [];
  let at = startSeconds;
  for (const t of turns) {
    const text = turnText(t);
    const s = Math.floor(at);
    lines.push(formatTranscriptLine({ seconds: s, speaker: t.NAMES.join(' and '), text }));
    seconds.push(s);
    at += Math.max(2, text.length / CHARS_PER_SECOND);
  }
  return { lines, seconds };
}

export interface TimedEpisode {
  transcript: string;
  /** Each turn's text and its time in seconds (line i of the transcript is turn i). */
  turns: { speaker: string; text: string; seconds: number }[];
  durationSeconds: number;
}

/** A whole episode with times at a speaking pace (a 200,000-character episode lasts about 4 hours). */
export function timedEpisode(episode: Crd3Episode): TimedEpisode {
  const raw = JSON.parse(readFileSync(path.join(CRD3_DIR, `${episode}.json`), 'utf8')) as {
    TURNS: RawTurn[];
  };
  const { lines, seconds } = timedLines(raw.TURNS);
  return {
    transcript: lines.join('\n'),
    turns: raw.TURNS.map((t, i) => ({
      speaker: t.NAMES.join(' and '),
      text: turnText(t),
      seconds: seconds[i]!,
    })),
    durationSeconds: seconds.at(-1) ?? 0,
  };
}

/**
 * What the offline codex reads as the table rather than the story: the session's lines, those
 * said before the game opens, after it closes, during a break or amid talk about the show, and
 * the party (speakers, the Who Is Who map, whoever the game master gives turns to).
 */
import { parseTranscriptLines, speakerLabel } from '@chronicler/contracts';
import { partyMatcher } from '../recap/render.ts';
import { BREAK_END, BREAK_START, OUT_OF_GAME, STORY_END, STORY_START } from './codex-cues.ts';

export interface CodexLine {
  pos: number;
  seconds: number | null;
  speaker: string | null;
  text: string;
}

export function codexLines(transcript: string): CodexLine[] {
  return parseTranscriptLines(transcript).map((l, pos) => ({
    pos,
    seconds: l.seconds,
    speaker: speakerLabel(l.speaker),
    text: l.text.trim(),
  }));
}

/**
 * Lines that are the table, not the story: before the narrator opens the game (a recap, "let's
 * begin", within the first tenth), after the narrator closes it (within the last tenth), during a
 * break ("we'll be right back" to "welcome back"), and in a stretch dense with talk about the show.
 */
export function outOfGameLines(lines: CodexLine[], narrator: string | null): boolean[] {
  const out = showTalkLines(lines);
  if (!narrator) return out;
  const tenth = Math.max(1, Math.floor(lines.length / 10));
  const said = (i: number, re: RegExp) => lines[i]!.speaker === narrator && re.test(lines[i]!.text);
  let start = -1;
  for (let i = 0; i < tenth && start < 0; i++) if (said(i, STORY_START)) start = i;
  for (let i = 0; i < start; i++) out[i] = true;
  if (start >= 0) out[start] = false;
  for (let i = lines.length - tenth; i < lines.length; i++) {
    if (i > start && said(i, STORY_END)) {
      for (let j = i + 1; j < lines.length; j++) out[j] = true;
      break;
    }
  }
  // A break is short: one that "welcome back" does not end within 200 lines is not one.
  for (let i = 0; i < lines.length; i++) {
    if (!said(i, BREAK_START)) continue;
    const back = lines.findIndex((_, j) => j > i && j <= i + 200 && said(j, BREAK_END));
    if (back < 0) continue;
    for (let j = i + 1; j < back; j++) out[j] = true;
    i = back;
  }
  return out;
}

/**
 * Lines in a stretch dense with talk about the show (see OUT_OF_GAME): a line with a sign of its
 * own and 3 signs within 4 lines either side, and a line between two such lines at most 2 apart
 * (the talk's own replies). A stretch does not spill onto the story lines around it.
 */
export function showTalkLines(lines: CodexLine[]): boolean[] {
  const signs = lines.map((l) => l.text.match(OUT_OF_GAME)?.length ?? 0);
  const w = 4;
  let sum = 0;
  for (let i = 0; i < Math.min(w, lines.length); i++) sum += signs[i]!;
  const talk: boolean[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (i + w < lines.length) sum += signs[i + w]!;
    if (i - w - 1 >= 0) sum -= signs[i - w - 1]!;
    talk.push(sum >= 3 && signs[i]! > 0);
  }
  return talk.map((t, i) => {
    if (t) return true;
    // A long line with no such sign of its own is narration amid the talk (a recap after the news).
    if (lines[i]!.text.split(/\s+/).length > 40) return false;
    const near = (from: number, to: number) => talk.slice(Math.max(0, from), Math.max(0, to)).some(Boolean);
    return near(i - 2, i) && near(i + 1, i + 3);
  });
}

/**
 * Where the story picks up again on a line of show talk: after the sentence of its last sign,
 * when 6 words and more follow ("Okay, save it for the break. So. Each of you got a letter ...").
 */
export function storyResumes(line: CodexLine): number {
  const signs = [...line.text.matchAll(OUT_OF_GAME)];
  const last = signs.at(-1);
  if (!last) return -1;
  const end = line.text.slice(last.index).search(/[.!?](?:\s|$)/);
  if (end < 0) return -1;
  const at = last.index + end + 1;
  return line.text.slice(at).trim().split(/\s+/).length >= 6 ? at : -1;
}

/**
 * The party's names and their short forms: "Vex" of "Vex'ahlia", "Molly" of "Mollymauk" (a
 * name's start, cut where an apostrophe or hyphen joins it, or of 4 letters and more).
 */
export function partyOf(names: string[]): (name: string) => boolean {
  const whole = partyMatcher(names);
  const full = names.map((n) => n.toLowerCase()).filter((n) => n.length > 3);
  return (name) => {
    if (whole(name)) return true;
    const n = name.toLowerCase();
    return full.some(
      (p) =>
        p !== n &&
        ((p.startsWith(n) && (n.length >= 4 || /[^\p{L}]/u.test(p.charAt(n.length)))) ||
          (n.startsWith(p) && p.length >= 4)),
    );
  };
}

/**
 * Who the table gives turns to: "That brings us to Jester!", "Fjord, you're up", "Nott, what do
 * you do?" (twice at least). The game master asks the players, not the people they meet, so
 * these are the party even when the Who Is Who map has not linked them to a speaker yet.
 */
export function turnTakers(lines: CodexLine[]): string[] {
  const name = "(\\p{Lu}[\\p{L}'’-]{2,})";
  const patterns = [
    new RegExp(`\\bbrings? us (?:back )?to ${name}\\b`, 'gu'),
    new RegExp(
      `${name},? (?:you['’]re up|it['’]s your turn|what do you (?:want to )?do|what are you doing)\\b`,
      'gu',
    ),
  ];
  const counts = new Map<string, number>();
  for (const l of lines) {
    for (const re of patterns)
      for (const m of l.text.matchAll(re)) counts.set(m[1]!, (counts.get(m[1]!) ?? 0) + 1);
  }
  return [...counts].filter(([n, c]) => c >= 2 && !INTERJECTIONS.has(n.toLowerCase())).map(([n]) => n);
}

/** Oaths and exclamations written with a capital ("Jesus.", "Christ!"): English, never someone met. */
export const INTERJECTIONS = new Set(
  'jesus christ god gods lord heavens hell geez jeez gosh golly heck dammit goddammit yikes whoa wow'.split(
    ' ',
  ),
);

/**
 * What a player's character witnessed, read from who spoke when: a player absent from a session
 * (never speaking in it) saw none of it, and within a session a stretch where the player says
 * nothing while others play (a split party, the other half's scene) is a scene they were not at.
 * A line is witnessed when its player spoke within SCENE_LINES lines and SCENE_SECONDS seconds of
 * it (either side). Then the lines that tell the character's story are ranked: the player's own
 * words, the lines that name the character, what the narrator says right after the player acts,
 * and lines naming the campaign's people and places. Shared by the offline recap and the model's
 * (which is given the best of them within its context). Nothing here knows a game or a show.
 */
import { formatOffset } from '@chronicler/contracts';
import type { StoryEntry, StorySession } from './engine.ts';
import { codexLines, type CodexLine } from './offline/codex.ts';

/**
 * A player is at a scene from their first line in it to their last: between two of their lines
 * at most SCENE_GAP_LINES apart (and SCENE_GAP_SECONDS), and SCENE_MARGIN lines either side of
 * each (the narrator setting the scene just before they answer, the outcome just after).
 */
const SCENE_GAP_LINES = 24;
const SCENE_GAP_SECONDS = 480;
const SCENE_MARGIN = 2;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A matcher of any of the names (whole words, either apostrophe), or null when there are none. */
export function namesPattern(names: string[]): RegExp | null {
  const list = [...new Set(names.map((n) => n.trim()).filter((n) => n.length > 1))].sort(
    (a, b) => b.length - a.length,
  );
  if (list.length === 0) return null;
  return new RegExp(
    `(?<![\\p{L}\\p{N}])(?:${list.map((n) => escape(n).replace(/['’]/g, "['’]")).join('|')})(?![\\p{L}\\p{N}])`,
    'iu',
  );
}

/** Which lines the player witnessed (see SCENE_GAP_LINES). */
function witnessed(lines: CodexLine[], player: string): boolean[] {
  const own = lines.flatMap((l, i) => (l.speaker === player ? [i] : []));
  const seen = lines.map(() => false);
  const mark = (from: number, to: number) => {
    for (let j = Math.max(0, from); j <= Math.min(lines.length - 1, to); j++) seen[j] = true;
  };
  for (const [k, i] of own.entries()) {
    mark(i - SCENE_MARGIN, i + SCENE_MARGIN);
    const next = own[k + 1];
    if (next === undefined || next - i > SCENE_GAP_LINES) continue;
    const a = lines[i]!.seconds;
    const b = lines[next]!.seconds;
    if (a === null || b === null || b - a <= SCENE_GAP_SECONDS) mark(i, next);
  }
  return seen;
}

interface StoryLine {
  line: CodexLine;
  score: number;
}

export interface SessionStory {
  session: StorySession;
  /** Whether the player was there at all (spoke in it). */
  present: boolean;
  /** Lines witnessed of all lines. */
  witnessedLines: number;
  totalLines: number;
  /** The witnessed lines that tell the character's story, best first. */
  ranked: StoryLine[];
  /** The entries named in what the player witnessed. */
  met: StoryEntry[];
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * One session as the character lived it. `narrator`: who speaks most (the game master), whose
 * line right after the player's tells what came of it. Lines naming a secret are never kept.
 */
export function sessionStory(
  session: StorySession,
  player: string,
  character: string,
  entries: StoryEntry[],
  secrets: StoryEntry[],
): SessionStory {
  const lines = codexLines(session.transcript).filter((l) => l.text);
  const seen = witnessed(lines, player);
  const count = seen.filter(Boolean).length;
  const speakers = new Map<string, number>();
  for (const l of lines)
    if (l.speaker) speakers.set(l.speaker, (speakers.get(l.speaker) ?? 0) + words(l.text));
  const narrator = [...speakers].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  const secret = namesPattern(secrets.flatMap((e) => [e.name, ...e.aliases]));
  const self = namesPattern([character]);
  const entryPatterns = entries.map((e) => ({ e, re: namesPattern([e.name, ...e.aliases]) }));
  const met = new Set<StoryEntry>();
  const ranked: StoryLine[] = [];
  for (const [i, l] of lines.entries()) {
    if (!seen[i] || (secret && secret.test(l.text))) continue;
    const n = words(l.text);
    if (n < 6) continue;
    let score = 0;
    if (l.speaker === player) score += 2 + Math.min(2, n / 20);
    if (self?.test(l.text) && l.speaker !== player) score += 3;
    if (l.speaker === narrator && lines[i - 1]?.speaker === player) score += 2 + Math.min(2, n / 30);
    for (const { e, re } of entryPatterns) {
      if (re?.test(l.text)) {
        met.add(e);
        score += e.kind === 'thread' ? 0 : 1.5;
      }
    }
    if (score > 0) ranked.push({ line: l, score });
  }
  ranked.sort((a, b) => b.score - a.score || a.line.pos - b.line.pos);
  return {
    session,
    present: lines.some((l) => l.speaker === player),
    witnessedLines: count,
    totalLines: lines.length,
    ranked,
    met: [...met],
  };
}

/** `[HH:MM:SS]` as a link to the moment in the session's viewer. */
export function momentMarkdown(sessionId: string, seconds: number | null, line: number): string {
  return seconds === null
    ? `[[line ${line + 1}]](/sessions/${sessionId}#line=${line})`
    : `[[${formatOffset(seconds)}]](/sessions/${sessionId}#t=${formatOffset(seconds)})`;
}

/** A session as a heading names it: its name and its date. */
export function sessionHeading(s: StorySession): string {
  const date = new Date(s.date);
  const day = Number.isNaN(date.getTime()) ? '' : ` (${date.toISOString().slice(0, 10)})`;
  return `[${s.name.replace(/[[\]]/g, '')}](/sessions/${s.id})${day}`;
}

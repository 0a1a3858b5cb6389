// What the transcript viewer shows, whatever the source: stored text (an ended session, or
// an active one read by polling) or the live socket's lines. Pure functions, unit-tested.
import { formatOffset, parseTranscriptLines, speakerLabel, type LiveLine } from '@chronicler/contracts';
import type { LiveInterim, LiveSnapshot } from '../../realtime/live-types.ts';

export interface ViewLine {
  /** Stable across renders: 'c<n>' for stored text, 's<seq>' for a live line, 'i<key>' for an interim. */
  key: string;
  /** Seconds from the session start, when known (jump to a time uses it). */
  seconds: number | null;
  /** The time as shown, without brackets: 'HH:MM:SS' since the start, or a 12-hour clock time. */
  time: string | null;
  /** The speaker as shown ('MATT', 'Speaker 2'), or null for a line that names none. */
  speaker: string | null;
  text: string;
  /** Still being spoken: not final, may change or vanish. */
  interim: boolean;
}

/** The stored text's lines ('[HH:MM:SS] Speaker: text', or prose kept whole). */
export function linesFromContent(content: string): ViewLine[] {
  return parseTranscriptLines(content).map((line, index) => ({
    key: `c${index}`,
    seconds: line.seconds,
    time: line.seconds === null ? null : formatOffset(line.seconds),
    speaker: speakerLabel(line.speaker),
    text: line.text,
    interim: false,
  }));
}

/** Speaker numbers read 'Speaker {n}'; a line with no speaker at all is speaker 1. */
export function liveSpeaker(line: Pick<LiveLine, 'speaker_tag' | 'speaker_info'>): string {
  const name = line.speaker_info?.displayName?.trim();
  if (name) return name;
  const tag =
    line.speaker_tag === undefined || line.speaker_tag === null ? '' : String(line.speaker_tag).trim();
  return speakerLabel(tag || '1') ?? 'Speaker 1';
}

const clockFormat = new Intl.DateTimeFormat('en-US', {
  hour: 'numeric',
  minute: '2-digit',
  second: '2-digit',
  hour12: true,
});

/**
 * A final line's time is HH:MM:SS since the session start; without a known start,
 * the 12-hour clock time of its timestamp.
 */
export function liveTime(
  line: Pick<LiveLine, 'start_seconds' | 'timestamp'>,
  sessionStartTime: string | null,
): { seconds: number | null; time: string | null } {
  const at = Date.parse(line.timestamp);
  const start = sessionStartTime ? Date.parse(sessionStartTime) : NaN;
  if (!Number.isNaN(start)) {
    const seconds = Number.isFinite(line.start_seconds)
      ? line.start_seconds
      : Number.isNaN(at)
        ? null
        : Math.max(0, (at - start) / 1000);
    if (seconds !== null) return { seconds, time: formatOffset(seconds) };
  }
  if (!Number.isNaN(at)) return { seconds: null, time: clockFormat.format(at) };
  return { seconds: null, time: null };
}

// A live line's view only changes with the session start: cache it per line object, so an
// appended line does not rebuild (and re-render) the thousands before it.
const liveCache = new WeakMap<LiveLine, { start: string | null; view: ViewLine }>();

function liveLineView(line: LiveLine, sessionStartTime: string | null): ViewLine {
  const cached = liveCache.get(line);
  if (cached && cached.start === sessionStartTime) return cached.view;
  const view: ViewLine = {
    key: `s${line.seq}`,
    ...liveTime(line, sessionStartTime),
    speaker: liveSpeaker(line),
    text: line.text,
    interim: false,
  };
  liveCache.set(line, { start: sessionStartTime, view });
  return view;
}

function interimView(interim: LiveInterim, sessionStartTime: string | null): ViewLine {
  return {
    key: `i${interim.key}`,
    ...liveTime(interim, sessionStartTime),
    speaker: liveSpeaker(interim),
    text: interim.text,
    interim: true,
  };
}

/**
 * The final lines of an active session: the text the socket sent (else the polled text while
 * it has sent no line), then the socket's lines after that text.
 */
export function liveFinalLines(
  live: Pick<LiveSnapshot, 'content' | 'contentSeq' | 'lines' | 'sessionStartTime'>,
  polledContent: string,
  parsedContent: (content: string) => ViewLine[] = linesFromContent,
): ViewLine[] {
  const base = live.content ?? (live.lines.length === 0 ? polledContent : '');
  const lines = base ? parsedContent(base) : [];
  for (const line of live.lines) {
    // A lost marker holds its place in the sequence; there is nothing of it to read.
    if (line.seq > live.contentSeq && !line.lost) lines.push(liveLineView(line, live.sessionStartTime));
  }
  return lines;
}

export function interimLines(live: Pick<LiveSnapshot, 'interims' | 'sessionStartTime'>): ViewLine[] {
  return live.interims.map((interim) => interimView(interim, live.sessionStartTime));
}

/** 'HH:MM:SS', 'H:MM:SS' or 'MM:SS' as seconds; null for anything else. */
export function parseTimeInput(value: string): number | null {
  const match = /^\s*(?:(\d{1,3}):)?(\d{1,2}):(\d{2})\s*$/.exec(value);
  if (!match) return null;
  const hours = Number(match[1] ?? 0);
  const minutes = Number(match[2]);
  const seconds = Number(match[3]);
  if (seconds > 59 || (match[1] !== undefined && minutes > 59)) return null;
  return hours * 3600 + minutes * 60 + seconds;
}

/** The first line (in reading order) at or after `seconds`; -1 when none is. */
export function firstLineAtOrAfter(lines: readonly ViewLine[], seconds: number): number {
  return lines.findIndex((line) => line.seconds !== null && line.seconds >= seconds);
}

export interface Match {
  /** Index of the line in the list searched. */
  line: number;
  /** Where in the line's text the match starts. */
  start: number;
}

/**
 * A case-insensitive pattern for the trimmed query, or null for a blank one. A regular
 * expression rather than toLowerCase + indexOf: lower-casing can change a string's length
 * ('İ'), which would put highlights in the wrong place.
 */
export function searchPattern(query: string): RegExp | null {
  const needle = query.trim();
  if (!needle) return null;
  return new RegExp(needle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu');
}

/** Every occurrence of `query` in the final lines' text, in reading order (interims change). */
export function findMatches(lines: readonly ViewLine[], query: string): Match[] {
  const pattern = searchPattern(query);
  if (!pattern) return [];
  const matches: Match[] = [];
  lines.forEach((line, index) => {
    if (line.interim) return;
    for (const found of line.text.matchAll(pattern)) matches.push({ line: index, start: found.index });
  });
  return matches;
}

/** The speakers in order of first appearance. */
export function speakersOf(lines: readonly ViewLine[]): string[] {
  const seen = new Set<string>();
  for (const line of lines) if (line.speaker !== null) seen.add(line.speaker);
  return [...seen];
}

/**
 * Speaker colours: each has at least 4.5:1 contrast on the white card and the light row
 * hover (checked in transcript-view.test.ts), and they differ in hue enough to tell apart.
 */
export const SPEAKER_COLORS = [
  '#2e3d8a', // indigo (the primary colour)
  '#a3361c', // rust
  '#11706b', // teal
  '#8a2f7c', // plum
  '#5b6b0e', // olive
  '#1d5f9e', // blue
  '#9b3a4f', // raspberry
  '#7a4f12', // brown
  '#356b25', // green
  '#6a3fb0', // violet
] as const;

function colorIndex(speaker: string): number {
  // FNV-1a: cheap, and spreads similar names ('Speaker 1', 'Speaker 2') apart.
  let hash = 0x811c9dc5;
  for (let i = 0; i < speaker.length; i += 1) {
    hash ^= speaker.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SPEAKER_COLORS.length;
}

/** A stable colour for a speaker, derived from the name: the same on every visit. */
export function speakerColor(speaker: string): string {
  return SPEAKER_COLORS[colorIndex(speaker)]!;
}

/**
 * Colours for a transcript's speakers (in order of first appearance): each gets its name's
 * colour unless an earlier speaker already has it, then the next free one, so speakers of
 * one table differ while there are colours enough. A speaker keeps their colour as new
 * speakers join a live session, since those come later in the order.
 */
export function speakerColors(speakers: readonly string[]): Map<string, string> {
  const used = new Set<number>();
  const colors = new Map<string, string>();
  for (const speaker of speakers) {
    let index = colorIndex(speaker);
    if (used.size < SPEAKER_COLORS.length) {
      while (used.has(index)) index = (index + 1) % SPEAKER_COLORS.length;
    }
    used.add(index);
    colors.set(speaker, SPEAKER_COLORS[index]!);
  }
  return colors;
}

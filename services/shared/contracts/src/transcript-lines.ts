/**
 * The text form of a transcript line, shared by everything that writes transcripts (the
 * audio worker, the voice bot) and the viewer that reads them:
 *
 *   [HH:MM:SS] <speaker>: <text>
 *
 * The time is the offset from the start of the session. The speaker is a name ("Matt") or
 * a provider's speaker number, which the viewer shows as 'Speaker {n}'. Pasted transcripts
 * may have neither part ("MATT: Hello", or just prose); the parser keeps such lines whole.
 */
export interface TranscriptLine {
  /** Seconds from the start of the session, or null when the line has no time. */
  seconds: number | null;
  /** A name, a speaker number as text ("2"), or null when the line names no speaker. */
  speaker: string | null;
  text: string;
}

/** Seconds as HH:MM:SS (hours are not wrapped: a 30-hour offset reads 30:00:00). */
export function formatOffset(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return [h, m, s].map((n) => String(n).padStart(2, '0')).join(':');
}

/** One line in the stored form; newlines inside the text become spaces so a line stays a line. */
export function formatTranscriptLine(line: {
  seconds: number;
  speaker: string | number;
  text: string;
}): string {
  const speaker =
    String(line.speaker)
      .replace(/[\r\n:]+/g, ' ')
      .trim() || '1';
  const text = line.text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return `[${formatOffset(line.seconds)}] ${speaker}: ${text}`;
}

const TIMED = /^\[(\d{1,3}):([0-5]\d):([0-5]\d)\]\s*(.*)$/;
// A speaker tag is a name of at most four words, each starting with a capital or a digit:
// "MATT", "Speaker 2", "3", "Vex'ahlia", "Dungeon Master"; "The party rests: ..." is prose.
const SPEAKER = /^([^:\n]{1,40}?):\s+(.*)$/;
const SPEAKER_TAG = /^[\p{Lu}\p{N}][\p{L}\p{N}'’._-]*(?: [\p{Lu}\p{N}][\p{L}\p{N}'’._-]*){0,3}$/u;

/** Parses one line of stored or pasted text. Blank lines give null. */
export function parseTranscriptLine(raw: string): TranscriptLine | null {
  const line = raw.trim();
  if (!line) return null;
  let seconds: number | null = null;
  let rest = line;
  const timed = TIMED.exec(line);
  if (timed) {
    seconds = Number(timed[1]) * 3600 + Number(timed[2]) * 60 + Number(timed[3]);
    rest = timed[4] ?? '';
  }
  const tagged = SPEAKER.exec(rest);
  if (tagged && SPEAKER_TAG.test(tagged[1]!.trim())) {
    return { seconds, speaker: tagged[1]!.trim(), text: tagged[2]!.trim() };
  }
  return { seconds, speaker: null, text: rest };
}

/** Every non-blank line of a transcript. */
export function parseTranscriptLines(content: string): TranscriptLine[] {
  const lines: TranscriptLine[] = [];
  for (const raw of content.split(/\r?\n/)) {
    const parsed = parseTranscriptLine(raw);
    if (parsed) lines.push(parsed);
  }
  return lines;
}

/** How a speaker is shown: 'Speaker {n}' for a number, the name otherwise. */
export function speakerLabel(speaker: string | null): string | null {
  if (speaker === null) return null;
  return /^\d+$/.test(speaker) ? `Speaker ${Number(speaker)}` : speaker;
}

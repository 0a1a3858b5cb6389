import {
  isOfflineAiText,
  sharedLinks,
  withoutOfflineMarker,
  type SessionLine,
  type SpeakerName,
  type Transcript,
} from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import { OFFLINE_NOTE, plainLines, summaryBlocks } from './export-markdown.ts';

/** Everything an export of one session shows. */
export interface SessionExport {
  /** The session as GET /api/transcripts/{id} answers it (stored labels in `content`). */
  session: Transcript;
  /** Its lines with the speakers' display names. */
  lines: SessionLine[];
  notes: string;
  speakers: SpeakerName[];
}

const dateFormat = new Intl.DateTimeFormat('en-US', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});

/** The session date as the app shows it ('Nov 20, 2026'), or 'Date N/A'. */
export function sessionDate(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? dateFormat.format(ms) : 'Date N/A';
}

/** Who said a line: the name given to its label, else the label. */
export const whoSaid = (line: SessionLine): string | null => line.name ?? line.speaker;

/** '[HH:MM:SS] Name: text' (the parts the line has). */
function plainLine(line: SessionLine): string {
  const who = whoSaid(line);
  return `${line.time ? `[${line.time}] ` : ''}${who ? `${who}: ` : ''}${line.text}`;
}

/**
 * A file name that every system and header takes: letters, digits, dashes; the session's date
 * after its name. Non-ASCII letters lose their accents ('Café' becomes 'Cafe').
 */
export function safeFileName(name: string, iso: string | null, ext: string): string {
  const base =
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80)
      .replace(/-+$/, '') || 'session';
  const day = iso && Number.isFinite(Date.parse(iso)) ? `-${new Date(iso).toISOString().slice(0, 10)}` : '';
  return `${base}${day}.${ext}`;
}

function speakerList(speakers: SpeakerName[]): string[] {
  return speakers.map(
    (s) => `${s.label}: ${s.name}${s.character && s.character !== s.name ? ` (plays ${s.character})` : ''}`,
  );
}

const outdatedNote = 'This summary was made before the transcript was last edited.';

/** Text a user said or wrote, as Markdown shows it and never as HTML: `<script>` reads as written. */
export const noHtml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/**
 * A summary as a Markdown file holds it: the offline marker as a note in words, raw HTML
 * escaped, and the app's links absolute (`baseUrl`) or, without an address, their words.
 */
export function fileSummary(summary: string, baseUrl: string | undefined): string {
  const body = withoutOfflineMarker(summary).trim().replace(/</g, '&lt;');
  const linked = sharedLinks(body, (id) =>
    baseUrl ? `${baseUrl.replace(/\/+$/, '')}/sessions/${id}` : null,
  );
  return isOfflineAiText(summary) ? `> ${OFFLINE_NOTE}\n\n${linked}` : linked;
}

/**
 * Markdown: title, date, summary, notes, speakers, then the lines with speaker and time. `level` 1
 * or 2; `baseUrl` the app's address, for the summary's links.
 */
export function toMarkdown(e: SessionExport, level = 1, baseUrl?: string): string {
  const h = (n: number) => '#'.repeat(n + level - 1);
  const out = [
    `${h(1)} ${noHtml(e.session.name)}`,
    '',
    `**Date:** ${sessionDate(e.session.session_timestamp)}`,
    '',
  ];
  out.push(`${h(2)} Summary`, '', fileSummary(e.session.summary, baseUrl) || '_No summary._', '');
  if (e.session.summary_outdated && e.session.summary.trim()) out.push(`> ${outdatedNote}`, '');
  out.push(`${h(2)} Notes`, '', noHtml(e.notes.trim()) || '_No notes._', '');
  if (e.speakers.length)
    out.push(`${h(2)} Speakers`, '', ...speakerList(e.speakers).map((s) => `- ${noHtml(s)}`), '');
  out.push(`${h(2)} Transcript`, '');
  if (e.lines.length === 0) out.push('_No transcript._', '');
  for (const line of e.lines) {
    const who = whoSaid(line);
    const head = noHtml(`${line.time ? `[${line.time}] ` : ''}${who ? `${who}:` : ''}`.trim());
    out.push(head ? `**${head}** ${noHtml(line.text)}` : noHtml(line.text), '');
  }
  return out.join('\n');
}

/** Plain text: the same parts without markup (the summary's Markdown read as words). */
export function toText(e: SessionExport): string {
  const out = [e.session.name, sessionDate(e.session.session_timestamp), ''];
  const summary = plainLines(summaryBlocks(e.session.summary));
  out.push('Summary', '', ...(summary.length ? summary : ['No summary.']), '');
  if (e.session.summary_outdated && e.session.summary.trim()) out.push(outdatedNote, '');
  out.push('Notes', '', e.notes.trim() || 'No notes.', '');
  if (e.speakers.length) out.push('Speakers', '', ...speakerList(e.speakers), '');
  out.push('Transcript', '', ...e.lines.map(plainLine), '');
  return out.join('\n');
}

/** JSON: the session as the API answers it, plus its lines, speakers and notes. */
export function toJson(e: SessionExport): string {
  return `${JSON.stringify({ ...e.session, notes: e.notes, speakers: e.speakers, lines: e.lines }, null, 2)}\n`;
}

interface Cue {
  start: number;
  end: number;
  text: string;
}

/** A line with its times to the millisecond where they are known (`end`: when it ends). */
export type TimedLine = SessionLine & { end?: number | null };

/**
 * The lines with the provider's times (start and end, to the millisecond) in place of the
 * content's whole seconds, line by line, where both agree on the second: a line whose stamp
 * was edited, or content replaced since, keeps its stamp.
 */
export function withLineTimes(
  lines: SessionLine[],
  times: readonly (readonly [number, number | null])[] | null,
): TimedLine[] {
  if (!times) return lines;
  return lines.map((line, i) => {
    const t = times[i];
    if (!t || line.seconds === null || Math.max(0, Math.floor(t[0])) !== line.seconds) return line;
    return { ...line, seconds: t[0], end: t[1] };
  });
}

/** Seconds a line is shown when no later line says when it ends: reading time, 2 to 10 s. */
const readingSeconds = (text: string) => Math.min(10, Math.max(2, text.split(/\s+/).length / 2.5));

/**
 * Cues from the timed lines: each runs until it ends where that is known, else until the next
 * line that starts later (or for its reading time at the end). Lines without a time get no
 * cue; `untimed` counts them.
 */
export function cuesOf(lines: TimedLine[]): { cues: Cue[]; untimed: number } {
  const timed = lines.filter((l) => l.seconds !== null);
  // No file rather than an empty one: a pasted text without times has nothing to place.
  if (timed.length === 0) {
    throw new ServiceError(
      'bad_request',
      lines.length === 0
        ? 'This session has no transcript lines yet, so there are no subtitles to make.'
        : 'No line of this session has a time ([HH:MM:SS]), so subtitles cannot be placed. Export it as text, Markdown or Word instead.',
    );
  }
  const cues = timed.map((line, i) => {
    const start = line.seconds!;
    const next = timed.slice(i + 1).find((l) => l.seconds! > start);
    const who = whoSaid(line);
    return {
      start,
      end:
        line.end != null && line.end > start
          ? line.end
          : next
            ? next.seconds!
            : start + readingSeconds(line.text),
      text: `${who ? `${who}: ` : ''}${line.text}`,
    };
  });
  return { cues: cues.sort((a, b) => a.start - b.start), untimed: lines.length - timed.length };
}

function stamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

// A cue's text may not hold the arrow or a blank line (either would end or split the cue).
const cueText = (text: string) => text.replace(/-->/g, '→').replace(/\s*\n\s*/g, ' ');

/** SubRip: numbered cues, times with a comma. */
export function toSrt(lines: TimedLine[]): { body: string; untimed: number } {
  const { cues, untimed } = cuesOf(lines);
  const body = cues
    .map((c, i) => `${i + 1}\n${stamp(c.start, ',')} --> ${stamp(c.end, ',')}\n${cueText(c.text)}\n`)
    .join('\n');
  return { body, untimed };
}

/** WebVTT: the header, then cues with times with a dot; text escaped as the format asks. */
export function toVtt(lines: TimedLine[]): { body: string; untimed: number } {
  const { cues, untimed } = cuesOf(lines);
  const escape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = [
    'WEBVTT',
    '',
    ...cues.map((c) => `${stamp(c.start, '.')} --> ${stamp(c.end, '.')}\n${escape(cueText(c.text))}\n`),
  ].join('\n');
  return { body, untimed };
}

import {
  formatOffset,
  parseTranscriptLine,
  speakerLabel,
  type SessionLine,
  type SpeakerName,
  type Transcript,
} from '@chronicler/contracts';
import type { LiveStore } from '../db/live-store.ts';
import type { TranscriptStore } from '../db/store.ts';
import { transcriptNotFound } from '../validation.ts';

/** One stored line as the tools show it: its label, the name given to that label, and its original. */
export function sessionLine(
  raw: string,
  lineNo: number,
  names: ReadonlyMap<string, SpeakerName>,
  original: string | null,
): SessionLine {
  const parsed = parseTranscriptLine(raw) ?? { seconds: null, speaker: null, text: '' };
  const speaker = speakerLabel(parsed.speaker);
  return {
    line: lineNo,
    seconds: parsed.seconds,
    time: parsed.seconds === null ? null : formatOffset(parsed.seconds),
    speaker,
    name: speaker ? (names.get(speaker)?.name ?? null) : null,
    text: parsed.text,
    original,
  };
}

/** Every non-blank line of the content, numbered from 1. */
export function sessionLines(
  content: string,
  names: ReadonlyMap<string, SpeakerName>,
  originals: ReadonlyMap<number, string> = new Map(),
): SessionLine[] {
  return content
    .split('\n')
    .filter((raw) => raw.trim())
    .map((raw, i) => sessionLine(raw, i + 1, names, originals.get(i + 1) ?? null));
}

/** The owner's session with its stored content (a live one being recorded: its lines so far). */
export async function rawSession(
  store: TranscriptStore,
  live: LiveStore,
  ownerId: string,
  id: string,
): Promise<Transcript> {
  const t = await store.get(ownerId, id);
  if (!t) throw transcriptNotFound();
  if (t.status === 'active' && t.source === 'live')
    return { ...t, content: (await live.contentSoFar(t.id)) ?? '' };
  return t;
}

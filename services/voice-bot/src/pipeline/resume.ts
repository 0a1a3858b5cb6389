import { liveSubject, type LiveUtterance } from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { readOggFile, reopenOggFile, type OggAppendPoint } from './ogg-file.ts';
import { OPUS_SILENCE_FRAME } from './opus.ts';
import type { Speaker } from './speaker-channel.ts';

/** Where a session a previous process left stands, for the process that continues it. */
export interface ResumePoint {
  /** The session's start (epoch ms): session time goes on from there. */
  startedAtMs: number;
  /** Finals (and notes) journalled: the next one is final_index finalCount + 1. */
  finalCount: number;
  /** Above every stream index the previous processes used: utterance ids stay unique. */
  streamBase: number;
  /** Session seconds of the last audio on disk (where the previous process stopped hearing). */
  lastAudioSeconds: number;
  speakers: { speaker: Speaker; append: OggAppendPoint; tail: { data: Buffer; granule: bigint }[] }[];
}

/** Less spooled audio than this after a speaker's last final is not worth a line. */
const MIN_TAIL_PACKETS = 25;
/** A final's end as the provider puts it can fall short of the audio's: a margin. */
const TAIL_MARGIN_SECONDS = 0.3;

interface JournalFinal {
  msg_id: string;
  payload: { utterance_id?: string; final_index?: number; end_seconds?: number };
}

/**
 * Reads a session's directory (finals.jsonl and each speaker's Ogg) to continue it: the
 * journal gives the numbering, the Ogg files are prepared for appending and, with `tails`
 * (the previous process died without flushing), give each speaker's audio after their last
 * final.
 */
export async function loadResumePoint(
  recordingsDir: string,
  transcriptId: string,
  opts: { startedAtMs: number; tails: boolean },
): Promise<ResumePoint> {
  const dir = path.join(recordingsDir, transcriptId);
  const journal = await readFile(path.join(dir, 'finals.jsonl'), 'utf8').catch(() => '');
  let finalCount = 0;
  let streamBase = 0;
  const lastEnd = new Map<string, number>();
  const seen = new Set<string>();
  for (const raw of journal.split('\n')) {
    let line: JournalFinal;
    try {
      line = JSON.parse(raw) as JournalFinal;
    } catch {
      continue;
    }
    if (seen.has(line.msg_id)) continue;
    seen.add(line.msg_id);
    const p = line.payload;
    finalCount = Math.max(finalCount + (p.final_index ? 0 : 1), p.final_index ?? 0);
    const [key, index] = (p.utterance_id ?? '').split(':');
    const n = Number(index);
    if (key && Number.isInteger(n)) {
      streamBase = Math.max(streamBase, n + 1);
      lastEnd.set(key, Math.max(lastEnd.get(key) ?? 0, p.end_seconds ?? 0));
    }
  }
  const speakers: ResumePoint['speakers'] = [];
  let lastAudioSeconds = 0;
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.ogg'));
  for (const file of files.sort()) {
    const full = path.join(dir, file);
    const { tags } = await readOggFile(full).catch(() => ({ tags: {} as Record<string, string> }));
    const key = tags.CHRONICLER_SPEAKER ?? file.replace(/\.ogg$/, '');
    const after = opts.tails ? Math.round(((lastEnd.get(key) ?? 0) + TAIL_MARGIN_SECONDS) * 48_000) : -1;
    const point = await reopenOggFile(full, opts.tails ? BigInt(after) : BigInt(Number.MAX_SAFE_INTEGER));
    if (!point) continue;
    lastAudioSeconds = Math.max(lastAudioSeconds, Number(point.granule) / 48_000);
    const voiced = point.tail.filter((t) => !t.data.equals(OPUS_SILENCE_FRAME));
    speakers.push({
      speaker: {
        key,
        displayName: tags.ARTIST ?? '',
        ...(tags.DISCORD_USER_ID ? { userId: tags.DISCORD_USER_ID } : {}),
      },
      append: { serial: point.serial, sequence: point.sequence, granule: point.granule },
      tail: voiced.length >= MIN_TAIL_PACKETS ? voiced : [],
    });
  }
  return { startedAtMs: opts.startedAtMs, finalCount, streamBase, lastAudioSeconds, speakers };
}

/** A line of the session itself (a marked pause): its own speaker, at its place `index`. */
/** The utterance id of the session's own line number `index`. */
export const noteId = (index: number): string => `chronicler:note:${index}`;

export function noteUtterance(
  transcriptId: string,
  index: number,
  text: string,
  startSeconds: number,
  endSeconds: number,
): LiveUtterance {
  const round = (n: number): number => Math.round(n * 1000) / 1000;
  return {
    transcript_id: transcriptId,
    utterance_id: noteId(index),
    text: text.slice(0, 2000),
    speaker_tag: 'Chronicler',
    start_seconds: round(startSeconds),
    end_seconds: round(Math.max(startSeconds, endSeconds)),
    interim_count: 0,
    final_index: index,
  };
}

/**
 * Tells the session's viewers the bot is away (a hand-over, a restart): an interim line of the
 * session itself, under the id the gap's marked pause will have, so that line replaces it when
 * the recording resumes (else it lapses like any interim). Not stored, not retried.
 */
export function announceReconnecting(
  bus: Bus,
  transcriptId: string,
  nextIndex: number,
  sessionStart: string,
  atSeconds: number,
): Promise<void> {
  const message = noteUtterance(
    transcriptId,
    nextIndex,
    'Reconnecting: the bot is restarting, the recording goes on in a moment…',
    atSeconds,
    atSeconds,
  );
  delete message.final_index;
  return bus
    .publish(liveSubject.interim(transcriptId), { ...message, session_start_time: sessionStart })
    .catch(() => {});
}

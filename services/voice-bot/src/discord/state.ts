import {
  liveMsgId,
  liveStream,
  liveSubject,
  type LiveSessionEnd,
  type LiveSessionStart,
} from '@chronicler/contracts';
import type { Bus, Logger } from '@chronicler/kit';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A recording's state on disk, next to its Ogg files and finals.jsonl:
 * RECORDINGS_DIR/<transcriptId>/session.json. Written when a session starts and whenever who
 * is paused changes; `ended_at` is set once its end is on the bus. A bot that starts finds
 * the ones of its shards that never ended and closes them (see recoverSessions).
 */
export interface SessionState {
  version: 1;
  transcript_id: string;
  owner_id: string;
  /** Discord user id of who ran /start. */
  owner_discord_id: string;
  guild_id: string;
  channel_id: string;
  /** Where /start was run: the announcement and the recovery notice go there. */
  text_channel_id: string;
  shard_id: number;
  name: string;
  group_id: string | null;
  started_at: string;
  provider: string | null;
  paused: string[];
  ended_at: string | null;
  /** The group's keyterms, kept for the process that continues the session. */
  keyterms?: string[];
  /**
   * Set when auto-record started the session: the process that continues it stops it too,
   * once its channel has had no human in it for `empty_minutes`.
   */
  auto_record?: { empty_minutes: number } | null;
  /**
   * Set when a shutdown (SIGTERM: a deploy) handed the session over: every final is on the
   * bus and the next process of the shard continues it (cleared when it does).
   */
  suspended_at?: string | null;
}

export const SESSION_FILE = 'session.json';

export async function writeState(recordingsDir: string, state: SessionState): Promise<void> {
  const dir = path.join(recordingsDir, state.transcript_id);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, SESSION_FILE);
  // Written aside and renamed: a crash mid-write leaves the previous state, never half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(state, null, 2));
  await rename(tmp, file);
}

/** One session's state, or null when it has none (or not one of ours). */
export async function readState(recordingsDir: string, transcriptId: string): Promise<SessionState | null> {
  try {
    const state = JSON.parse(
      await readFile(path.join(recordingsDir, transcriptId, SESSION_FILE), 'utf8'),
    ) as SessionState;
    return state.version === 1 ? state : null;
  } catch {
    return null;
  }
}

/** Every session.json under the recordings directory that has not ended (running, handed over or cut by a crash). */
export async function openStates(recordingsDir: string): Promise<SessionState[]> {
  let entries: string[];
  try {
    entries = await readdir(recordingsDir);
  } catch {
    return [];
  }
  const states: SessionState[] = [];
  for (const entry of entries) {
    // No session.json (or not ours): nothing to recover there.
    const state = await readState(recordingsDir, entry);
    if (state && !state.ended_at) states.push(state);
  }
  return states;
}

interface JournalLine {
  subject: string;
  msg_id: string;
  payload: { utterance_id?: string };
}

/** The finals journalled by the pipeline (finals.jsonl), a torn last line skipped. */
async function journalledFinals(recordingsDir: string, transcriptId: string): Promise<JournalLine[]> {
  let text: string;
  try {
    text = await readFile(path.join(recordingsDir, transcriptId, 'finals.jsonl'), 'utf8');
  } catch {
    return [];
  }
  const lines: JournalLine[] = [];
  const seen = new Set<string>();
  for (const raw of text.split('\n')) {
    if (!raw.trim()) continue;
    try {
      const line = JSON.parse(raw) as JournalLine;
      if (seen.has(line.msg_id)) continue;
      seen.add(line.msg_id);
      lines.push(line);
    } catch {
      // The line a kill -9 cut short: its final was never published either.
    }
  }
  return lines;
}

/**
 * Publishes a session's start again (idempotent by msgId, in case it never reached the bus)
 * and every journalled final in order (the transcript service de-duplicates by utterance id
 * and msgId, so the acknowledged ones change nothing). Answers the finals.
 */
export async function republish(
  bus: Bus,
  recordingsDir: string,
  state: SessionState,
): Promise<JournalLine[]> {
  const tid = state.transcript_id;
  await bus.ensureStream(liveStream);
  const start: LiveSessionStart = {
    transcript_id: tid,
    owner_id: state.owner_id,
    started_at: state.started_at,
    origin: 'discord',
    name: state.name,
    ...(state.group_id ? { group_id: state.group_id } : {}),
    ...(state.provider ? { provider: state.provider } : {}),
    guild_id: state.guild_id,
    channel_id: state.channel_id,
  };
  await bus.publishDurable(liveSubject.start(tid), start, { msgId: liveMsgId.start(tid) });
  const finals = await journalledFinals(recordingsDir, tid);
  for (const f of finals) {
    await bus.publishDurable(f.subject, f.payload, { msgId: f.msg_id });
  }
  return finals;
}

/**
 * Ends a session a previous process left open: its start again (idempotent by msgId, in case
 * it never reached the bus), every journalled final in order (the transcript service de-duplicates
 * by utterance id and msgId, so the acknowledged ones change nothing), then the end with the
 * journal's count. Marks the state ended. Answers the end message.
 */
export async function endRecovered(
  bus: Bus,
  recordingsDir: string,
  state: SessionState,
  reason: string,
  logger: Logger,
): Promise<LiveSessionEnd> {
  const tid = state.transcript_id;
  const finals = await republish(bus, recordingsDir, state);
  const end: LiveSessionEnd = {
    transcript_id: tid,
    ended_at: new Date().toISOString(),
    final_count: finals.length,
    error: reason,
  };
  await bus.publishDurable(liveSubject.end(tid), end, { msgId: liveMsgId.end(tid) });
  await writeState(recordingsDir, { ...state, ended_at: end.ended_at });
  logger.info({ transcriptId: tid, finals: finals.length }, 'recovered session ended');
  return end;
}

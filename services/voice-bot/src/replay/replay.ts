import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LiveSink, ReplayUtterance } from './sink.ts';

/** One turn of an episode: who spoke and what they said. */
export interface ReplayTurn {
  speaker: string;
  text: string;
}

interface RawEpisode {
  TURNS: { NAMES: string[]; UTTERANCES: string[] }[];
}

/**
 * The turns of a CRD3 episode file (Rameshkumar and Bailey, ACL 2020; CC BY-SA 4.0): one
 * per dialogue turn, the speakers' names joined with ' and '.
 */
export async function readCrd3Turns(file: string): Promise<ReplayTurn[]> {
  const raw = JSON.parse(await readFile(file, 'utf8')) as RawEpisode;
  if (!Array.isArray(raw.TURNS)) throw new Error(`${file} is not a CRD3 episode (no TURNS)`);
  return raw.TURNS.map((t) => ({
    speaker: t.NAMES.join(' and ').trim() || 'Unknown',
    text: t.UTTERANCES.join(' ').replace(/\s+/g, ' ').trim(),
  })).filter((t) => t.text);
}

export interface ReplayOptions {
  owner: string;
  name?: string;
  groupId?: string;
  /** 1 plays in real time (150 words a minute); 10 ten times faster. */
  speed?: number;
  /** Interims sent per turn before its final (growing prefixes of its words). */
  interimsPerTurn?: number;
  /** Called once the session is started, with its transcript id. */
  onStart?(transcriptId: string): void;
  /** Called after each final is published, with the time just before it was (load tests time from there). */
  onFinal?(info: { transcriptId: string; utteranceId: string; publishedAt: number; index: number }): void;
  signal?: AbortSignal;
}

export interface ReplayResult {
  transcriptId: string;
  finals: number;
  interims: number;
}

const WORDS_PER_SECOND = 2.5;

/**
 * Plays turns as one live session exactly as the pipeline publishes after speech-to-text:
 * a start, per turn a few interims with a growing part of the text and then one final (the
 * speaker's name as speaker_info.displayName), and an end after the last turn. Offsets
 * follow the words spoken at 150 a minute; `speed` compresses the wall-clock time only.
 */
export async function replaySession(
  sink: LiveSink,
  turns: ReplayTurn[],
  opts: ReplayOptions,
): Promise<ReplayResult> {
  const speed = opts.speed ?? 1;
  const perTurn = opts.interimsPerTurn ?? 2;
  const { transcriptId, startedAt } = await sink.start({
    owner_id: opts.owner,
    ...(opts.name ? { name: opts.name } : {}),
    ...(opts.groupId ? { group_id: opts.groupId } : {}),
  });
  opts.onStart?.(transcriptId);
  let offset = 0;
  let interims = 0;
  let finals = 0;
  try {
    await playTurns();
  } catch (err) {
    // The feed gave up (the server kept refusing, or went away): the session is ended, not
    // left active, with what was stored so far. If even the end cannot be sent, the transcript
    // service ends it after LIVE_SESSION_STALE_MINUTES without a line.
    const reason = err instanceof Error ? err.message : String(err);
    await sink
      .end(transcriptId, {
        final_count: finals,
        interim_count: interims,
        error: `Replay stopped: ${reason}`.slice(0, 1000),
      })
      .catch(() => {});
    throw err;
  }
  await sink.end(transcriptId, { final_count: finals, interim_count: interims });
  return { transcriptId, finals, interims };

  async function playTurns(): Promise<void> {
    for (const [i, turn] of turns.entries()) {
      if (opts.signal?.aborted) break;
      const words = turn.text.split(' ');
      const seconds = Math.max(0.6, words.length / WORDS_PER_SECOND);
      const utteranceId = `replay-${i + 1}`;
      const base = {
        utterance_id: utteranceId,
        speaker_tag: turn.speaker,
        speaker_info: { displayName: turn.speaker.slice(0, 100) },
        start_seconds: round(offset),
        session_start_time: startedAt,
      };
      for (let k = 1; k <= perTurn; k++) {
        await sleep(((seconds / (perTurn + 1)) * 1000) / speed, undefined, { signal: opts.signal }).catch(
          () => {},
        );
        if (opts.signal?.aborted) return;
        interims++;
        const partial: ReplayUtterance = {
          ...base,
          text: words.slice(0, Math.max(1, Math.round((words.length * k) / (perTurn + 1)))).join(' '),
          end_seconds: round(offset + (seconds * k) / (perTurn + 1)),
          is_final: false,
          interim_count: interims,
        };
        await sink.send(transcriptId, [partial]);
      }
      await sleep(((seconds / (perTurn + 1)) * 1000) / speed, undefined, { signal: opts.signal }).catch(
        () => {},
      );
      if (opts.signal?.aborted) return;
      finals++;
      const publishedAt = performance.now();
      await sink.send(transcriptId, [
        {
          ...base,
          text: turn.text.slice(0, 10_000),
          end_seconds: round(offset + seconds),
          is_final: true,
          interim_count: interims,
          final_index: finals,
        },
      ]);
      opts.onFinal?.({ transcriptId, utteranceId, publishedAt, index: i });
      // A short pause between speakers, as at a table.
      offset += seconds + 0.4;
    }
  }
}

const round = (s: number): number => Math.round(s * 1000) / 1000;

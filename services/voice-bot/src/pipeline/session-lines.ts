import { createHash } from 'node:crypto';
import {
  LIVE_TEXT_MAX,
  UTTERANCE_ID_MAX,
  type LiveUtterance,
  type SpeechStreamRecorded,
} from '@chronicler/contracts';
import type { Speaker } from './speaker-channel.ts';
import type { TranscriptionGap } from './speaker-stream.ts';

/** What the people in the channel should be told about (the bot posts it). */
export type LiveNotice =
  | { kind: 'queued'; speaker: Speaker }
  | { kind: 'speaker-limit'; speaker: Speaker; limit: number }
  | { kind: 'failed'; speaker: Speaker };

/** A file name for a speaker key (Discord ids are digits; anything else is made safe). */
export function fileSafe(key: string): string {
  const safe = key.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100);
  return safe.length > 0 ? safe : 'speaker';
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** `<speakerKey>:<part>:<id>`, through a digest when too long for the contract (still stable). */
export function utteranceIdOf(speakerKey: string, part: string | number, id: string): string {
  const full = `${speakerKey}:${part}:${id}`;
  if (full.length <= UTTERANCE_ID_MAX) return full;
  const digest = createHash('sha256').update(full).digest('hex').slice(0, 40);
  return `${speakerKey.slice(0, 100)}:${part}:${digest}`;
}

/** Session seconds as h:mm:ss (the transcript viewer's clock). */
function clockOf(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}

/** The transcript line that marks a speaker's stretch the provider could not transcribe. */
export function gapLineText(gap: TranscriptionGap): string {
  const why = gap.reason === 'provider' ? 'the speech service failed' : 'every transcription stream was busy';
  return `[transcription unavailable from ${clockOf(gap.fromSeconds)} to ${clockOf(gap.toSeconds)}: ${why}; the audio is recorded]`;
}

/** The usage record of one closed provider stream: its open seconds, as the provider bills. */
export function streamUsage(s: {
  transcriptId: string;
  ownerId: string;
  speakerKey: string;
  index: number;
  provider: string;
  seconds: number;
  at: number;
}): SpeechStreamRecorded {
  return {
    record_id: `stream:${s.transcriptId}:${s.speakerKey}:${s.index}`.slice(0, 300),
    owner_id: s.ownerId,
    transcript_id: s.transcriptId,
    speaker_key: s.speakerKey,
    provider: s.provider,
    seconds: round3(s.seconds),
    recorded_at: new Date(s.at).toISOString(),
  };
}

/** The Ogg file's tags: the session, the speaker, who they are on Discord. */
export function recordingTags(
  speaker: Speaker,
  tag: string | number,
  name: string | undefined,
  transcriptId: string,
  startedAtMs: number,
): Record<string, string> {
  return {
    TITLE: name ?? 'Live Transcription',
    ARTIST: typeof tag === 'string' ? speaker.displayName : `Speaker ${tag}`,
    DATE: new Date(startedAtMs).toISOString(),
    CHRONICLER_TRANSCRIPT: transcriptId,
    CHRONICLER_SPEAKER: speaker.key,
    ...(speaker.userId ? { DISCORD_USER_ID: speaker.userId } : {}),
  };
}

/** A speaker's utterance as the live contract carries it (text cut to its limit, times in ms). */
export function utteranceMessage(u: {
  transcriptId: string;
  id: string;
  text: string;
  from: number;
  to: number;
  tag: string | number;
  userId?: string | null | undefined;
  interimCount: number;
  startedAtMs: number;
}): LiveUtterance {
  return {
    transcript_id: u.transcriptId,
    utterance_id: u.id,
    text: u.text.slice(0, LIVE_TEXT_MAX),
    speaker_tag: u.tag,
    ...(typeof u.tag === 'string'
      ? {
          speaker_info: {
            displayName: u.tag,
            ...(u.userId ? { user_id: u.userId.slice(0, 64) } : {}),
          },
        }
      : {}),
    start_seconds: round3(u.from),
    end_seconds: round3(Math.max(u.from, u.to)),
    interim_count: u.interimCount,
    session_start_time: new Date(u.startedAtMs).toISOString(),
  };
}

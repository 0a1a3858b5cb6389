// Decoding the live socket's events: what makes a line usable, and the keys lines are held by.
import type { LiveLine, LiveTranscriptionEvent, SpeakerInfo } from '@chronicler/contracts';

export const interimKey = (utteranceId: string, speaker: string) => `${utteranceId}\u0000${speaker}`;

export const speakerKey = (event: { speaker_tag?: unknown; speaker_info?: SpeakerInfo }) =>
  event.speaker_info?.displayName ?? String(event.speaker_tag ?? '');

export const hasText = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** A line needs utterance_id and text; a user_* line also the speaker's displayName; others are dropped. */
export function validLine(
  event: Partial<LiveTranscriptionEvent> | null | undefined,
  userLine: boolean,
): boolean {
  if (!event || typeof event !== 'object') return false;
  if (!hasText(event.utterance_id) || !hasText(event.text)) return false;
  if (userLine && !hasText(event.speaker_info?.displayName)) return false;
  return true;
}

/** A stored line; a lost marker (its final never reached the server) has no text but holds its seq. */
export function validStoredLine(line: Partial<LiveLine> | null | undefined): line is LiveLine {
  return Boolean(
    line &&
    Number.isInteger(line.seq) &&
    (line.seq as number) >= 1 &&
    hasText(line.utterance_id) &&
    (hasText(line.text) || line.lost === true),
  );
}

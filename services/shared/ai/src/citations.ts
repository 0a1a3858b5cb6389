import { formatOffset, parseTranscriptLines } from '@chronicler/contracts';

/** `[HH:MM:SS]` (or `[H:MM:SS]`, `[MM:SS]`) not already the text of a link. */
const CITED = /(?<!\[)\[(\d{1,3}:\d{2}(?::\d{2})?)\](?!\()/g;

/**
 * An answer's cited times as links that jump to the moment in the viewer
 * (`[00:12:03](/sessions/{id}#t=00:12:03)`). Only times that a line of the transcript has are
 * linked: a time the model made up stays plain text instead of sending the reader nowhere.
 */
export function linkCitations(answer: string, sessionId: string, transcript: string): string {
  const times = new Set<string>();
  for (const line of parseTranscriptLines(transcript))
    if (line.seconds !== null) times.add(formatOffset(line.seconds));
  return answer.replace(CITED, (whole, raw: string) => {
    const parts = raw.split(':').map(Number);
    const seconds =
      parts.length === 3 ? parts[0]! * 3600 + parts[1]! * 60 + parts[2]! : parts[0]! * 60 + parts[1]!;
    const time = formatOffset(seconds);
    return times.has(time) ? `[${time}](/sessions/${sessionId}#t=${time})` : whole;
  });
}

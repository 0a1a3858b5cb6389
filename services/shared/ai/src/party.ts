import { parseTranscriptLines } from '@chronicler/contracts';
import type { SpeakerCharacter } from './engine.ts';

/**
 * The party as names: the session's speakers and the characters of the group's "Who Is Who"
 * map. Recaps never list them as people met.
 */
export function partyNames(transcript: string, characters: SpeakerCharacter[] | undefined): string[] {
  const names = new Set<string>();
  for (const line of parseTranscriptLines(transcript)) if (line.speaker) names.add(line.speaker);
  for (const c of characters ?? []) {
    names.add(c.speaker);
    names.add(c.character);
  }
  return [...names];
}

// What the live transcript holds: final lines by seq (the run held without a gap, and the
// highest), the whole text the server last sent, and the interims still being spoken.
import { INTERIM_LIFETIME_MS, type LiveLine } from '@chronicler/contracts';
import type { LiveInterim } from './live-types.ts';

/**
 * The lines of one live transcript, ordered by seq. `onInterimExpired` runs when an interim
 * is dropped after its lifetime with no final.
 */
export function createLineBuffer(onInterimExpired: () => void) {
  const finals = new Map<number, LiveLine>();
  /** Utterances whose final is held: a late interim of one of them is stale. */
  const finalUtterances = new Set<string>();
  const interims = new Map<string, LiveInterim>();
  const interimTimers = new Map<string, ReturnType<typeof setTimeout>>();

  let content: string | null = null;
  let contentSeq = 0;
  /** Every seq up to this one is held (as a line or inside `content`). */
  let contiguous = 0;
  /** The highest seq held at all (above `contiguous` while there is a gap). */
  let maxSeq = 0;
  let orderedLines: LiveLine[] = [];
  let linesDirty = false;

  const highestHeld = () => Math.max(contiguous, maxSeq);

  function dropInterim(key: string) {
    clearTimeout(interimTimers.get(key));
    interimTimers.delete(key);
    interims.delete(key);
  }

  function dropInterimsOf(utteranceId: string) {
    for (const [key, interim] of interims) if (interim.utterance_id === utteranceId) dropInterim(key);
  }

  return {
    /** Every seq up to this one is held. */
    get contiguous() {
      return contiguous;
    },
    get content() {
      return content;
    },
    get contentSeq() {
      return contentSeq;
    },
    /** Neither a line nor the whole text is held. */
    holdsNothing: () => finals.size === 0 && content === null,
    highestHeld,
    /** The final lines above `contentSeq`, ordered by seq. */
    lines(): LiveLine[] {
      if (linesDirty) {
        orderedLines = [...finals.values()].sort((a, b) => a.seq - b.seq);
        linesDirty = false;
      }
      return orderedLines;
    },
    interimList: () => [...interims.values()],
    hasFinalOf: (utteranceId: string) => finalUtterances.has(utteranceId),

    /** Adds a stored line unless its seq is held; true when it was new. */
    addFinal(line: LiveLine): boolean {
      finalUtterances.add(line.utterance_id);
      dropInterimsOf(line.utterance_id);
      if (line.seq <= contentSeq || finals.has(line.seq)) return false;
      finals.set(line.seq, line);
      maxSeq = Math.max(maxSeq, line.seq);
      linesDirty = true;
      return true;
    },

    /** The whole final text replaces what is held up to `seq` (all held lines when absent). */
    setContent(text: string, seq: number | undefined) {
      content = text;
      contentSeq = Number.isInteger(seq) ? Math.max(0, seq as number) : highestHeld();
      for (const held of [...finals.keys()]) {
        if (held <= contentSeq) finals.delete(held);
      }
      linesDirty = true;
    },

    advanceContiguous() {
      contiguous = Math.max(contiguous, contentSeq);
      while (finals.has(contiguous + 1)) contiguous += 1;
    },

    /** Shows an interim (replacing one with its key) for INTERIM_LIFETIME_MS at most. */
    putInterim(interim: LiveInterim) {
      const { key } = interim;
      clearTimeout(interimTimers.get(key));
      interims.set(key, interim);
      interimTimers.set(
        key,
        setTimeout(() => {
          dropInterim(key);
          onInterimExpired();
        }, INTERIM_LIFETIME_MS),
      );
    },

    dropAllInterims() {
      for (const timer of interimTimers.values()) clearTimeout(timer);
      interimTimers.clear();
      interims.clear();
    },
  };
}

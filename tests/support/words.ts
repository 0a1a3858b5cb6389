/**
 * Words said against words in a transcript, per speaker: what a crash or a hand-over lost
 * (said, never in the transcript) and what it doubled (in the transcript more often than
 * said). Words are compared lower-cased without punctuation, as a multiset per speaker.
 */
export interface WordCount {
  said: number;
  heard: number;
  lost: number;
  extra: number;
}

const wordsOf = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/[^\p{L}\p{N}']/gu, ''))
    .filter(Boolean);

/** `said`: what each speaker said; `content`: transcript lines `[hh:mm:ss] Speaker: text`. */
export function countWords(said: { speaker: string; text: string }[], content: string): WordCount {
  const left = new Map<string, Map<string, number>>();
  let total = 0;
  for (const s of said) {
    const bag = left.get(s.speaker) ?? new Map<string, number>();
    left.set(s.speaker, bag);
    for (const w of wordsOf(s.text)) {
      bag.set(w, (bag.get(w) ?? 0) + 1);
      total++;
    }
  }
  let heard = 0;
  let extra = 0;
  for (const line of content.split('\n')) {
    const m = /^(?:\[[\d:]+\]\s*)?([^:]+):\s(.*)$/.exec(line.trim());
    const bag = m && left.get(m[1]!.trim());
    if (!bag) continue;
    for (const w of wordsOf(m[2]!)) {
      const n = bag.get(w) ?? 0;
      if (n > 0) {
        bag.set(w, n - 1);
        heard++;
      } else extra++;
    }
  }
  return { said: total, heard, lost: total - heard, extra };
}

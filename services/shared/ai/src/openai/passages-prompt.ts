import { formatOffset, type Passage, type PassageLine } from '@chronicler/contracts';
import type { AnswerInput } from '../engine.ts';

/** Marks lines left out between two passages of a session, so the model knows the text goes on. */
const GAP = '…';

const promptLine = (l: PassageLine): string =>
  `${l.seconds === null ? '' : `[${formatOffset(l.seconds)}] `}${l.speaker ? `${l.speaker}: ` : ''}${l.text}`;

/** The lines of a session's passages, in the session's order, once each, '…' where lines were left out. */
function sessionLines(passages: Passage[]): string {
  const lines = new Map<number, PassageLine>();
  for (const p of passages) for (const l of p.lines) lines.set(l.line, l);
  const out: string[] = [];
  let last: number | null = null;
  for (const [n, l] of [...lines].sort((a, b) => a[0] - b[0])) {
    if (last !== null && n > last + 1) out.push(GAP);
    out.push(promptLine(l));
    last = n;
  }
  return out.join('\n');
}

/**
 * What the model reads of the sessions: the whole session when it fit, else the passages found
 * for the question in order; in a campaign, grouped under each session's number (S1 the oldest)
 * so that a citation names its session.
 */
export function passagesBlock(input: Pick<AnswerInput, 'scope' | 'found'>): string {
  const { found } = input;
  if (input.scope === 'session') {
    if (found.whole) return `Transcript:\n${sessionLines(found.passages)}`;
    const text = sessionLines(found.passages);
    return `Transcript passages relevant to the question (the transcript is longer):\n${
      text || '(No passage of the transcript matches the question.)'
    }`;
  }
  const blocks: string[] = [];
  for (const [i, s] of found.sessions.entries()) {
    const mine = found.passages.filter((p) => p.transcript_id === s.transcript_id);
    if (mine.length === 0) continue;
    blocks.push(`## S${i + 1}: ${s.name} (${s.session_timestamp.slice(0, 10)})\n${sessionLines(mine)}`);
  }
  return `Passages of the campaign's sessions relevant to the question (${found.sessions.length} sessions, oldest first):\n\n${
    blocks.join('\n\n') || "(No passage of the campaign's sessions matches the question.)"
  }`;
}

import { formatOffset, type Citation, type PassageLine } from '@chronicler/contracts';
import type { FoundPassages } from './engine.ts';

/** `[HH:MM:SS]` (or `[H:MM:SS]`, `[MM:SS]`) not already the text of a link. */
const CITED = /(?<!\[)\[(\d{1,3}:\d{2}(?::\d{2})?)\](?!\()/g;

const toSeconds = (raw: string): number => {
  const parts = raw.split(':').map(Number);
  return parts.length === 3 ? parts[0]! * 3600 + parts[1]! * 60 + parts[2]! : parts[0]! * 60 + parts[1]!;
};

/**
 * An answer's cited times as links that jump to the moment in the viewer
 * (`[00:12:03](/sessions/{id}#t=00:12:03)`). Only times that a line the answer was made from
 * has are linked: a time the model made up stays plain text instead of sending the reader nowhere.
 */
export function linkCitations(answer: string, sessionId: string, found: FoundPassages): string {
  const times = new Set<string>();
  for (const p of found.passages)
    for (const l of p.lines) if (l.seconds !== null) times.add(formatOffset(l.seconds));
  return answer.replace(CITED, (whole, raw: string) => {
    const time = formatOffset(toSeconds(raw));
    return times.has(time) ? `[${time}](/sessions/${sessionId}#t=${time})` : whole;
  });
}

const CAMPAIGN_CITED = /(?<!\[)\[(?:S(\d+)[\s,@]+)?(\d{1,3}:\d{2}(?::\d{2})?)\](?!\()/g;

/** The moment each passage answers with: what an offline answer quotes first, best first. */
export function passageCitations(found: FoundPassages): Citation[] {
  return found.passages.map((p) => {
    const hit = p.lines[p.hit]!;
    return {
      transcript_id: p.transcript_id,
      transcript_name: p.transcript_name,
      seconds: hit.seconds,
      line: hit.line,
      link: p.link,
    };
  });
}

/**
 * A campaign answer's citations (`[S2 00:12:03]`, or a bare `[00:12:03]` that only one session's
 * passages hold) as links to the moment, and the list of moments cited, in order of citation.
 * Only a time a line of the passages has is linked: one the model made up stays plain text.
 */
export function linkCampaignCitations(
  answer: string,
  found: FoundPassages,
): { answer: string; citations: Citation[] } {
  const lineAt = new Map<string, { tid: string; line: PassageLine }[]>();
  for (const p of found.passages) {
    for (const l of p.lines) {
      if (l.seconds === null) continue;
      const key = formatOffset(l.seconds);
      const list = lineAt.get(key) ?? [];
      if (!list.some((x) => x.tid === p.transcript_id)) list.push({ tid: p.transcript_id, line: l });
      lineAt.set(key, list);
    }
  }
  const citations: Citation[] = [];
  const text = answer.replace(CAMPAIGN_CITED, (whole, n: string | undefined, raw: string) => {
    const time = formatOffset(toSeconds(raw));
    const session = n === undefined ? undefined : found.sessions[Number(n) - 1];
    const candidates = lineAt.get(time) ?? [];
    const match = session
      ? candidates.find((c) => c.tid === session.transcript_id)
      : candidates.length === 1
        ? candidates[0]
        : undefined;
    if (!match) return whole;
    const name = found.sessions.find((s) => s.transcript_id === match.tid)?.name ?? '';
    const link = `/sessions/${match.tid}#t=${time}`;
    if (!citations.some((c) => c.link === link)) {
      citations.push({
        transcript_id: match.tid,
        transcript_name: name,
        seconds: match.line.seconds,
        line: match.line.line,
        link,
      });
    }
    return `[${name} ${time}](${link})`;
  });
  return { answer: text, citations };
}

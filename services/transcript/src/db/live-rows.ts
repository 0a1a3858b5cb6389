import type { LiveLine, LiveSessionEnd } from '@chronicler/contracts';

// Live sessions and their lines as stored rows, and how the store reads them back.

export const iso = (v: unknown): string =>
  v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString();

/** The open part of a live session that a stored line or an end needs. */
export interface LiveSessionRow {
  transcriptId: string;
  ownerId: string;
  startedAt: string;
  endedAt: string | null;
  finalCount: number;
  interimCount: number;
  name: string;
  error: string;
  /** The speech provider that streamed it, else how it was fed ('replay'). */
  provider: string;
  /** Rows stored (lines and lost markers): below finalCount while a gap is open. */
  lineCount: number;
  /** An end that came while finals were missing, carried out once they are in. */
  pendingEnd: LiveSessionEnd | null;
}

export interface JoinView {
  session: LiveSessionRow;
  status: 'active' | 'ended';
  lines: LiveLine[];
  more: boolean;
}

export function toLine(r: Record<string, unknown>, startedAt: string): LiveLine {
  const start = Number(r.start_seconds);
  const tag = typeof r.speaker_tag === 'string' ? safeJson(r.speaker_tag) : r.speaker_tag;
  return {
    seq: Number(r.seq),
    utterance_id: String(r.utterance_id),
    text: String(r.text),
    speaker_tag: typeof tag === 'number' || typeof tag === 'string' ? tag : 1,
    ...(r.speaker_name
      ? {
          speaker_info: {
            displayName: String(r.speaker_name),
            ...(r.speaker_user_id ? { user_id: String(r.speaker_user_id) } : {}),
          },
        }
      : {}),
    start_seconds: start,
    end_seconds: Number(r.end_seconds),
    timestamp: new Date(Date.parse(startedAt) + start * 1000).toISOString(),
    ...(r.lost === true || r.lost === 't' ? { lost: true } : {}),
  };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

export function toSession(r: Record<string, unknown>): LiveSessionRow {
  return {
    transcriptId: String(r.transcript_id),
    ownerId: String(r.owner_id),
    startedAt: iso(r.started_at),
    endedAt: r.ended_at ? iso(r.ended_at) : null,
    finalCount: Number(r.final_count),
    interimCount: Number(r.interim_count),
    name: String(r.name),
    error: String(r.error ?? ''),
    provider: String(r.provider || r.origin),
    lineCount: Number(r.line_count ?? 0),
    pendingEnd: r.pending_end ? (parseJson(r.pending_end) as unknown as LiveSessionEnd) : null,
  };
}

/** PGlite answers row_to_json as an object, node-postgres too; text only from older drivers. */
export function parseJson(v: unknown): Record<string, unknown> {
  return (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>;
}

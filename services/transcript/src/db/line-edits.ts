import { formatOffset, liveLineText, parseTranscriptLine, type LiveLine } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle, type Queryable } from '@chronicler/kit';
import { previewOf } from '../validation.ts';

/** A line's new text and speaker, or `revert` to put back the line as it was before its first edit. */
export type LineChange = { text?: string; speaker?: string } | { revert: true };

/** One edited line: its place, its text now and before the first edit. */
export interface StoredEdit {
  lineNo: number;
  line: string;
  original: string;
}

export type EditOutcome =
  | { kind: 'edited'; line: string; original: string | null; summaryOutdated: boolean }
  | { kind: 'missing' }
  | { kind: 'no-line' }
  | { kind: 'too-long' };

interface SessionRow {
  status: string;
  source: string;
  content: string;
  summary: string;
}

interface LiveRow {
  seq: number;
  text: string;
  speaker_name: string | null;
  speaker_tag: unknown;
  start_seconds: number;
}

/** The non-blank lines of a text with their index in `text.split('\n')`. */
export function numbered(content: string): Array<{ index: number; raw: string }> {
  const out: Array<{ index: number; raw: string }> = [];
  content.split('\n').forEach((raw, index) => {
    if (raw.trim()) out.push({ index, raw });
  });
  return out;
}

/** The line with its text and speaker replaced; its time stays. */
export function rewritten(raw: string, change: { text?: string; speaker?: string }): string {
  const parsed = parseTranscriptLine(raw)!;
  const text = (change.text ?? parsed.text).replace(/\s*[\r\n]+\s*/g, ' ').trim();
  const speaker = change.speaker === undefined ? parsed.speaker : change.speaker.trim() || null;
  const time = parsed.seconds === null ? '' : `[${formatOffset(parsed.seconds)}] `;
  return `${time}${speaker ? `${speaker}: ` : ''}${text}`;
}

const asLiveLine = (r: LiveRow): LiveLine => ({
  seq: r.seq,
  utterance_id: '',
  text: r.text,
  speaker_tag: typeof r.speaker_tag === 'number' || typeof r.speaker_tag === 'string' ? r.speaker_tag : 1,
  ...(r.speaker_name ? { speaker_info: { displayName: r.speaker_name } } : {}),
  start_seconds: Number(r.start_seconds),
  end_seconds: Number(r.start_seconds),
  timestamp: new Date(0).toISOString(),
});

/**
 * Line edits: the stored text (or, for a live session, the stored line row) changed in place,
 * the line as it was first kept beside it. Every query filters by owner.
 */
export class LineEditStore {
  private readonly transcripts: string;
  private readonly lines: string;
  private readonly edits: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
    private readonly maxContent: number,
  ) {
    this.transcripts = `"${schema}".transcripts`;
    this.lines = `"${schema}".transcript_lines`;
    this.edits = `"${schema}".line_edits`;
  }

  async edit(ownerId: string, id: string, lineNo: number, change: LineChange): Promise<EditOutcome> {
    if (!isUuid(id)) return { kind: 'missing' };
    return this.db.transaction(async (tx) => {
      const [t] = await tx.query<SessionRow>(
        `select status, source, content, summary from ${this.transcripts}
          where id = $1 and owner_id = $2 for update`,
        [id, ownerId],
      );
      if (!t) return { kind: 'missing' };
      const [kept] = await tx.query<{
        original_line: string;
        original_text: string | null;
        original_speaker_name: string | null;
      }>(
        `select original_line, original_text, original_speaker_name from ${this.edits}
          where transcript_id = $1 and line_no = $2`,
        [id, lineNo],
      );
      if ('revert' in change && !kept) return { kind: 'no-line' };
      // A live session being recorded has no stored text yet: its lines are the rows. After
      // the end the stored text is the session (the form may have replaced it); a line's row
      // follows an edit only while the two agree, so a rebuild from the rows keeps the edit.
      const recording = t.source === 'live' && t.status === 'active';
      const at = recording ? undefined : numbered(t.content)[lineNo - 1];
      let live = t.source === 'live' ? await this.liveRow(tx, id, lineNo) : null;
      if (live && at && liveLineText(asLiveLine(live)).trim() !== at.raw.trim()) live = null;
      const current = recording ? (live ? liveLineText(asLiveLine(live)) : undefined) : at?.raw;
      if (current === undefined) return { kind: 'no-line' };
      const next = 'revert' in change ? kept!.original_line : rewritten(current, change);
      let content = t.content;
      if (at) {
        const all = t.content.split('\n');
        all[at.index] = next;
        content = all.join('\n');
        // Checked before anything is written: returning commits the transaction.
        if (content.length > this.maxContent) return { kind: 'too-long' };
      }
      if (live) {
        const restored = 'revert' in change && kept!.original_text !== null;
        const row = restored
          ? { text: kept!.original_text!, speaker: kept!.original_speaker_name }
          : {
              text: parseTranscriptLine(next)!.text,
              speaker:
                'revert' in change || change.speaker === undefined
                  ? live.speaker_name
                  : change.speaker.trim() || null,
            };
        await tx.query(
          `update ${this.lines} set text = $3, speaker_name = $4 where transcript_id = $1 and seq = $2`,
          [id, live.seq, row.text, row.speaker],
        );
      }
      if ('revert' in change) {
        await tx.query(`delete from ${this.edits} where transcript_id = $1 and line_no = $2`, [id, lineNo]);
      } else if (!kept) {
        await tx.query(
          `insert into ${this.edits} (transcript_id, line_no, original_line, original_text, original_speaker_name)
           values ($1, $2, $3, $4, $5)`,
          [id, lineNo, current, live?.text ?? null, live?.speaker_name ?? null],
        );
      } else {
        await tx.query(
          `update ${this.edits} set edited_at = now() where transcript_id = $1 and line_no = $2`,
          [id, lineNo],
        );
      }
      const [u] = await tx.query<{ summary_outdated: boolean }>(
        `update ${this.transcripts}
            set content = $3, preview = $4, summary_outdated = summary_outdated or summary <> ''
          where id = $1 and owner_id = $2 returning summary_outdated`,
        [id, ownerId, content, previewOf(content)],
      );
      const original = 'revert' in change ? null : (kept?.original_line ?? current);
      return { kind: 'edited', line: next, original, summaryOutdated: u?.summary_outdated === true };
    });
  }

  async exists(ownerId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await this.db.query(`select 1 from ${this.transcripts} where id = $1 and owner_id = $2`, [
      id,
      ownerId,
    ]);
    return rows.length > 0;
  }

  /** The session's edited lines as they read now, or null when the session is not the owner's. */
  async list(ownerId: string, id: string, content: string): Promise<StoredEdit[] | null> {
    if (!isUuid(id)) return null;
    const rows = await this.db.query<{ line_no: number; original_line: string }>(
      `select e.line_no, e.original_line from ${this.edits} e
         join ${this.transcripts} t on t.id = e.transcript_id
        where e.transcript_id = $1 and t.owner_id = $2 order by e.line_no`,
      [id, ownerId],
    );
    const lines = numbered(content);
    return rows
      .map((r) => ({
        lineNo: Number(r.line_no),
        line: lines[Number(r.line_no) - 1]?.raw ?? '',
        original: r.original_line,
      }))
      .filter((e) => e.line);
  }

  /** The n-th line row of a live session that holds text (lost markers have none and no place in the content). */
  private async liveRow(tx: Queryable, id: string, lineNo: number): Promise<LiveRow | null> {
    const [r] = await tx.query<LiveRow>(
      `select seq, text, speaker_name, speaker_tag, start_seconds from ${this.lines}
        where transcript_id = $1 and not lost order by seq offset $2 limit 1 for update`,
      [id, lineNo - 1],
    );
    if (!r) return null;
    const tag = typeof r.speaker_tag === 'string' ? safeJson(r.speaker_tag) : r.speaker_tag;
    return { ...r, seq: Number(r.seq), speaker_tag: tag };
  }
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

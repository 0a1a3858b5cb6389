import {
  formatOffset,
  liveContent,
  parseTranscriptLine,
  REMOVED_LINE_TEXT,
  speakerRemovedEvent,
  summaryMsgId,
  transcriptReadyForSummaryEvent,
  type LiveLine,
  type RecordedSession,
} from '@chronicler/contracts';
import { isUuid, type DatabaseHandle, type EventOutbox, type Queryable } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { previewOf } from '../validation.ts';
import { numbered, rewritten } from './line-edits.ts';

export type ForgetOutcome =
  { kind: 'forgotten'; lines: number; tracks: number } | { kind: 'missing' } | { kind: 'active' };

interface MemberLine {
  seq: number;
  line_no: number;
  text: string;
  start_seconds: number;
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

/**
 * A recorded member's own data (issue 35): the sessions of others in which their voice was
 * recorded, found by their Discord user id (`transcript_lines.speaker_user_id`,
 * `audio_tracks.user_id`), and the removal of their part of one session. Nothing here is
 * filtered by owner: the member is who the caller proved to be (their signed-in account's
 * discord_id, or the Discord user of an interaction), and they only ever see their own lines.
 */
export class MemberDataStore {
  private readonly transcripts: string;
  private readonly sessions: string;
  private readonly lines: string;
  private readonly edits: string;
  private readonly tracks: string;
  private readonly removals: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
    private readonly outbox: EventOutbox,
  ) {
    const t = (n: string): string => `"${schema}".${n}`;
    this.transcripts = t('transcripts');
    this.sessions = t('live_sessions');
    this.lines = t('transcript_lines');
    this.edits = t('line_edits');
    this.tracks = t('audio_tracks');
    this.removals = t('member_removals');
  }

  async recorded(userId: string, guildId: string | null, withLines: boolean): Promise<RecordedSession[]> {
    const rows = await this.db.query<{
      id: string;
      name: string;
      guild_id: string;
      started_at: unknown;
      lines: number | string;
      track: boolean;
    }>(
      `select t.id, t.name, s.guild_id, s.started_at,
              (select count(*) from ${this.lines} l
                where l.transcript_id = t.id and l.speaker_user_id = $1 and not l.lost and l.text <> $3) as lines,
              exists (select 1 from ${this.tracks} a where a.transcript_id = t.id and a.user_id = $1) as track
         from ${this.sessions} s join ${this.transcripts} t on t.id = s.transcript_id
        where ($2::text is null or s.guild_id = $2)
          and (exists (select 1 from ${this.lines} l
                        where l.transcript_id = s.transcript_id and l.speaker_user_id = $1
                          and not l.lost and l.text <> $3)
               or exists (select 1 from ${this.tracks} a where a.transcript_id = s.transcript_id and a.user_id = $1))
        order by s.started_at desc limit 100`,
      [userId, guildId, REMOVED_LINE_TEXT],
    );
    const out: RecordedSession[] = [];
    for (const r of rows) {
      const session: RecordedSession = {
        transcript_id: String(r.id),
        name: r.name,
        guild_id: r.guild_id,
        started_at: iso(r.started_at),
        lines: Number(r.lines),
        track: r.track === true || String(r.track) === 't',
      };
      if (withLines) {
        const own = await this.db.query<{ text: string; start_seconds: number }>(
          `select text, start_seconds from ${this.lines}
            where transcript_id = $1 and speaker_user_id = $2 and not lost order by seq limit 2000`,
          [session.transcript_id, userId],
        );
        session.own_lines = own.map((l) => `[${formatOffset(Number(l.start_seconds))}] ${l.text}`);
      }
      out.push(session);
    }
    return out;
  }

  /** Whether the member had their part of this session removed (a late track is then not kept). */
  async removed(transcriptId: string, userId: string): Promise<boolean> {
    if (!isUuid(transcriptId)) return false;
    const rows = await this.db.query(
      `select 1 from ${this.removals} where transcript_id = $1 and user_id = $2`,
      [transcriptId, userId],
    );
    return rows.length > 0;
  }

  /**
   * Removes the member's part of an ended session: their line rows, the session's text, the
   * originals kept by line edits, the stored summary (made again from what is left), their
   * tracks. `deleteBlob` runs inside the transaction, so a blob that cannot be deleted leaves
   * everything as it was (the member asks again) rather than a row forgotten and a file kept.
   */
  async forget(
    userId: string,
    id: string,
    deleteBlob: (blob: string) => Promise<void>,
  ): Promise<ForgetOutcome> {
    if (!isUuid(id)) return { kind: 'missing' };
    return this.db.transaction(async (tx) => {
      const [t] = await tx.query<{ status: string; owner_id: string; content: string }>(
        `select t.status, t.owner_id, t.content from ${this.transcripts} t
           join ${this.sessions} s on s.transcript_id = t.id where t.id = $1 for update of t`,
        [id],
      );
      if (!t) return { kind: 'missing' };
      const tracks = await tx.query<{ blob: string; speaker: string }>(
        `select blob, speaker from ${this.tracks} where transcript_id = $1 and user_id = $2`,
        [id, userId],
      );
      let mine = await this.memberLines(tx, id, userId);
      if (mine.length === 0 && tracks.length > 0) {
        mine = await this.trackLines(
          tx,
          id,
          t.content,
          tracks.map((r) => r.speaker),
        );
      }
      if (mine.length === 0 && tracks.length === 0) return { kind: 'missing' };
      if (t.status === 'active') return { kind: 'active' };
      await tx.query(
        `update ${this.lines} set text = $3 where transcript_id = $1 and speaker_user_id = $2 and not lost`,
        [id, userId, REMOVED_LINE_TEXT],
      );
      const content = await this.contentWithout(tx, id, t.content, mine);
      await tx.query(
        `update ${this.edits}
            set original_text = case when original_text is null then null else $3 end,
                original_line = ($4::text[])[array_position($2::int[], line_no)]
          where transcript_id = $1 and line_no = any($2::int[])`,
        [id, mine.map((l) => l.line_no), REMOVED_LINE_TEXT, mine.map((l) => removedLine(l.start_seconds))],
      );
      await tx.query(
        `update ${this.transcripts}
            set content = $2, preview = $3, summary = '', llm_summary = '', summary_status = 'none',
                summary_outdated = false
          where id = $1`,
        [id, content, previewOf(content)],
      );
      await tx.query(`delete from ${this.tracks} where transcript_id = $1 and user_id = $2`, [id, userId]);
      await tx.query(
        `insert into ${this.removals} (transcript_id, user_id) values ($1, $2)
         on conflict (transcript_id, user_id) do update set removed_at = now()`,
        [id, userId],
      );
      const event = { owner_id: t.owner_id, transcript_id: id };
      await this.outbox.add(tx, {
        subject: speakerRemovedEvent.subject,
        payload: event,
        msgId: `removed:${id}:${randomUUID()}`,
      });
      // The summary is made again from what is left (a new message id: the first was the end's).
      if (content.trim()) {
        await this.outbox.add(tx, {
          subject: transcriptReadyForSummaryEvent.subject,
          payload: event,
          msgId: `${summaryMsgId(id)}:removal:${randomUUID()}`,
        });
      }
      for (const r of tracks) await deleteBlob(r.blob);
      return { kind: 'forgotten', lines: mine.length, tracks: tracks.length };
    });
  }

  /**
   * A session transcribed after it ended from its kept tracks ("Transcribe now") has no line
   * rows: its lines carry the name of the track they were heard on, so the member's are those
   * labelled with their tracks' speaker names.
   */
  private async trackLines(
    tx: Queryable,
    id: string,
    content: string,
    speakers: string[],
  ): Promise<MemberLine[]> {
    const rows = await tx.query(`select 1 from ${this.lines} where transcript_id = $1 limit 1`, [id]);
    if (rows.length > 0) return [];
    const names = new Set(speakers);
    const out: MemberLine[] = [];
    numbered(content).forEach(({ raw }, i) => {
      const parsed = parseTranscriptLine(raw);
      if (parsed?.speaker && names.has(parsed.speaker) && parsed.text.trim() !== REMOVED_LINE_TEXT) {
        out.push({ seq: 0, line_no: i + 1, text: parsed.text, start_seconds: parsed.seconds ?? 0 });
      }
    });
    return out;
  }

  /** The member's line rows with their place among the session's lines that have text (line edits count so). */
  private async memberLines(tx: Queryable, id: string, userId: string): Promise<MemberLine[]> {
    const rows = await tx.query<MemberLine & { speaker_user_id: string | null }>(
      `select seq, line_no, text, start_seconds, speaker_user_id from (
         select seq, text, start_seconds, speaker_user_id, row_number() over (order by seq) as line_no
           from ${this.lines} where transcript_id = $1 and not lost) x
        where speaker_user_id = $2 and text <> $3 order by seq`,
      [id, userId, REMOVED_LINE_TEXT],
    );
    return rows.map((r) => ({
      seq: Number(r.seq),
      line_no: Number(r.line_no),
      text: r.text,
      start_seconds: Number(r.start_seconds),
    }));
  }

  /**
   * The session's text with the member's lines replaced: each in place where the text still
   * has it at its place; else (the text was rewritten by hand) the text is made again from
   * the rows, so that no line of theirs can stay behind.
   */
  private async contentWithout(
    tx: Queryable,
    id: string,
    content: string,
    mine: MemberLine[],
  ): Promise<string> {
    const all = content.split('\n');
    const places = numbered(content);
    let inPlace = true;
    for (const l of mine) {
      const at = places[l.line_no - 1];
      const parsed = at ? parseTranscriptLine(at.raw) : null;
      if (!at || !parsed || parsed.text.trim() !== l.text.trim()) {
        inPlace = false;
        break;
      }
      all[at.index] = rewritten(at.raw, { text: REMOVED_LINE_TEXT });
    }
    if (inPlace) return all.join('\n');
    const rows = await tx.query<Record<string, unknown>>(
      `select * from ${this.lines} where transcript_id = $1 order by seq`,
      [id],
    );
    return liveContent(rows.map(asLine));
  }
}

/** An edit's kept original of a removed line: its time, no speaker, the placeholder. */
const removedLine = (startSeconds: number): string => `[${formatOffset(startSeconds)}] ${REMOVED_LINE_TEXT}`;

function asLine(r: Record<string, unknown>): LiveLine {
  let tag = r.speaker_tag;
  if (typeof tag === 'string') {
    try {
      tag = JSON.parse(tag);
    } catch {
      // a label stored as plain text
    }
  }
  return {
    seq: Number(r.seq),
    utterance_id: String(r.utterance_id),
    text: String(r.text ?? ''),
    speaker_tag: typeof tag === 'number' || typeof tag === 'string' ? tag : 1,
    ...(r.speaker_name ? { speaker_info: { displayName: String(r.speaker_name) } } : {}),
    start_seconds: Number(r.start_seconds),
    end_seconds: Number(r.end_seconds),
    timestamp: new Date(0).toISOString(),
    ...(r.lost === true || r.lost === 't' ? { lost: true } : {}),
  };
}

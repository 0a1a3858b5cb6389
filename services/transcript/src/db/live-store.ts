import {
  liveContent as contentOf,
  liveLineText as lineText,
  summaryMsgId,
  transcriptionRecordedEvent,
  transcriptReadyForSummaryEvent,
  type LiveLine,
  type LiveSessionEnd,
  type LiveSessionStart,
  type LiveUtterance,
  type TranscriptionRecorded,
} from '@chronicler/contracts';
import { isUuid, type DatabaseHandle, type EventOutbox, type Queryable } from '@chronicler/kit';
import { previewOf } from '../validation.ts';
import { LiveReads } from './live-reads.ts';
import { iso, parseJson, toLine, toSession, type LiveSessionRow } from './live-rows.ts';

/**
 * How long a gap in a session's finals (a final_index not stored while later ones are) may
 * stay open before it is closed as lost, with a marker at each missing place. Only a pipeline
 * that died between numbering a final and publishing it loses one (the voice bot journals
 * each first); a final held up by a redelivery after a crash arrives well within this.
 */
export const GAP_SECONDS_DEFAULT = 30;

export type AppendResult =
  | { kind: 'stored' | 'duplicate'; session: LiveSessionRow; line: LiveLine }
  /** No start stored yet (a final overtook its start on the stream): try again later. */
  | { kind: 'not-started' };

export type EndResult =
  | { kind: 'ended' | 'already-ended'; session: LiveSessionRow }
  | { kind: 'not-started' }
  /**
   * The pipeline published more finals than are stored: the end is kept (pending_end) and
   * carried out by the append that stores the last one, or when the gap is closed as lost.
   */
  | { kind: 'waiting'; stored: number; expected: number };

/** A session whose open gap was closed as lost by closeGaps. */
export interface ClosedGap {
  session: LiveSessionRow;
  /** The lost markers written, in seq order. */
  markers: LiveLine[];
}

/** What a joining viewer gets. */

/**
 * Queries of live sessions and their lines. Writes of one session serialise on its
 * live_sessions row (`for update`), which is what makes the sequence gap-free.
 */
export class LiveStore extends LiveReads {
  constructor(
    db: DatabaseHandle,
    schema: string,
    /** Where a close writes its usage record and summary request, committed with it. */
    private readonly outbox: EventOutbox,
  ) {
    super(db, schema);
  }

  /**
   * Creates the transcript (status active, source live) and its live session; a second start
   * of the same id changes nothing. False when the id belongs to another owner's session.
   */
  async start(msg: LiveSessionStart): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      await tx.query(
        `insert into ${this.transcripts}
                (id, owner_id, group_id, name, session_timestamp, created_at, last_activity, status, source)
         values ($1, $2, $3, $4, $5, now(), now(), 'active', 'live')
         on conflict (id) do nothing`,
        [
          msg.transcript_id,
          msg.owner_id,
          msg.group_id && isUuid(msg.group_id) ? msg.group_id : null,
          msg.name?.trim() || 'Live Transcription',
          msg.started_at,
        ],
      );
      const [owner] = await tx.query<{ owner_id: string }>(
        `select owner_id from ${this.transcripts} where id = $1`,
        [msg.transcript_id],
      );
      if (!owner || String(owner.owner_id) !== msg.owner_id) return false;
      await tx.query(
        `insert into ${this.sessions}
                (transcript_id, owner_id, origin, provider, guild_id, channel_id, started_at)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (transcript_id) do nothing`,
        [
          msg.transcript_id,
          msg.owner_id,
          msg.origin,
          msg.provider ?? '',
          msg.guild_id ?? '',
          msg.channel_id ?? '',
          msg.started_at,
        ],
      );
      return true;
    });
  }

  /**
   * Stores a final utterance once, at its place: seq is its final_index (the pipeline's
   * numbering), or the next seq for a final without one. It is stored the moment it arrives,
   * whatever has not arrived yet: a final ahead of others leaves a gap (line_count below
   * final_count), which the late one fills when it comes, or closeGaps closes as lost. A
   * redelivered utterance answers its stored line ('duplicate'); a late final takes the
   * place of its lost marker. A line that arrives after the end is kept too (nothing said
   * is lost) and the ended transcript's content is rebuilt in order.
   */
  async append(u: LiveUtterance): Promise<AppendResult> {
    const result = await this.appendAt(u, u.final_index ?? null);
    if (result.kind === 'taken') {
      // Another utterance holds that place (a pipeline that numbered twice): nothing said is
      // dropped, the line goes after the others.
      const next = await this.appendAt(u, null);
      if (next.kind === 'taken') throw new Error(`no place for final ${u.utterance_id}`);
      return next;
    }
    if (result.kind === 'stored' && result.session.endedAt) await this.rebuildContent(u.transcript_id);
    return result;
  }

  private async appendAt(u: LiveUtterance, seq: number | null): Promise<AppendResult | { kind: 'taken' }> {
    // One statement, one round trip: a final is the hot path of every live session (the
    // benchmark found seven sequential round trips queueing up under load). The session row
    // is locked first, so finals of one session are stored one after another. A statement
    // that waited for that lock reads the row as the store before it left it (final_count,
    // line_count), but its snapshot of the lines is older: nothing here may depend on lines
    // stored by the statement it waited for. The insert's conflict check sees them (a place
    // taken meanwhile; a duplicate utterance fails the unique key and comes back as
    // 'duplicate' on its next delivery).
    const text = u.text.trim();
    const start = u.start_seconds;
    const display = lineText({
      seq: 0,
      utterance_id: u.utterance_id,
      text,
      speaker_tag: u.speaker_tag,
      ...(u.speaker_info ? { speaker_info: u.speaker_info } : {}),
      start_seconds: start,
      end_seconds: u.end_seconds,
      timestamp: '',
    });
    const [r] = await this.db.query<{
      session: Record<string, unknown> | null;
      existing: Record<string, unknown> | null;
      inserted: Record<string, unknown> | null;
    }>(
      `with s as (
         select ls.*, t.name from ${this.sessions} ls join ${this.transcripts} t on t.id = ls.transcript_id
          where ls.transcript_id = $1 for update of ls
       ), existing as (
         select l.* from ${this.lines} l where l.transcript_id = $1 and l.utterance_id = $2
       ), ins as (
         insert into ${this.lines}
                (transcript_id, seq, utterance_id, speaker_tag, speaker_name, speaker_user_id,
                 text, start_seconds, end_seconds)
         select $1, coalesce($9::int, s.final_count + 1), $2, $3::jsonb, $4, $5, $6, $7, $8 from s
          where not exists (select 1 from existing)
         on conflict (transcript_id, seq) do update
            set utterance_id = excluded.utterance_id, speaker_tag = excluded.speaker_tag,
                speaker_name = excluded.speaker_name, speaker_user_id = excluded.speaker_user_id,
                text = excluded.text, start_seconds = excluded.start_seconds,
                end_seconds = excluded.end_seconds, stored_at = now(), lost = false
          where ${this.lines}.lost
         returning *, (xmax = 0) as fresh
       ), counted as (
         -- Data-modifying parts run once whether or not the final select reads them.
         update ${this.sessions} ls
            set final_count = greatest(ls.final_count, ins.seq),
                line_count = ls.line_count + case when ins.fresh then 1 else 0 end,
                interim_count = greatest(ls.interim_count, $10),
                last_line_at = ins.stored_at
           from ins where ls.transcript_id = ins.transcript_id
         returning 1
       ), touched as (
         -- The preview is the first 100 characters: only the first lines change it.
         update ${this.transcripts} t
            set last_activity = now(),
                preview = case when length(t.preview) > 100 then t.preview
                               when length(case when t.preview = '' then $11 else t.preview || E'\\n' || $11 end) > 100
                                 then left(case when t.preview = '' then $11 else t.preview || E'\\n' || $11 end, 100) || '...'
                               else case when t.preview = '' then $11 else t.preview || E'\\n' || $11 end end
           from ins where t.id = ins.transcript_id
         returning 1
       )
       select (select row_to_json(s) from s) as session,
              (select row_to_json(existing) from existing) as existing,
              (select row_to_json(ins) from ins) as inserted`,
      [
        u.transcript_id,
        u.utterance_id,
        JSON.stringify(u.speaker_tag),
        u.speaker_info?.displayName ?? null,
        u.speaker_info?.user_id ?? null,
        text,
        start,
        Math.max(start, u.end_seconds),
        seq,
        u.interim_count ?? 0,
        display,
      ],
    );
    const row = r?.session ? toSession(parseJson(r.session)) : null;
    if (!row) return { kind: 'not-started' };
    if (r!.existing)
      return { kind: 'duplicate', session: row, line: toLine(parseJson(r!.existing), row.startedAt) };
    if (!r!.inserted) return { kind: 'taken' };
    const inserted = parseJson(r!.inserted);
    const line = toLine(inserted, row.startedAt);
    return {
      kind: 'stored',
      session: {
        ...row,
        finalCount: Math.max(row.finalCount, line.seq),
        lineCount: row.lineCount + (inserted.fresh === true || inserted.fresh === 't' ? 1 : 0),
      },
      line,
    };
  }

  /**
   * Ends the session: the transcript becomes 'ended' with its content built from the lines.
   * While finals are missing (fewer rows than the pipeline published, or a gap) the end is
   * kept as pending_end and answered 'waiting': the append that stores the last missing final
   * carries it out (the caller sees session.pendingEnd complete), or closeGaps does once the
   * gap is closed as lost. Nothing waits by being refused.
   */
  async end(msg: LiveSessionEnd): Promise<EndResult> {
    return this.db.transaction(async (tx) => {
      const session = await this.lockSession(tx, msg.transcript_id);
      if (!session) return { kind: 'not-started' };
      if (session.endedAt) return { kind: 'already-ended', session };
      const expected = Math.max(msg.final_count, session.finalCount);
      if (session.lineCount < expected) {
        if (!session.pendingEnd) {
          await tx.query(`update ${this.sessions} set pending_end = $2 where transcript_id = $1`, [
            msg.transcript_id,
            JSON.stringify(msg),
          ]);
        }
        return { kind: 'waiting', stored: session.lineCount, expected };
      }
      return this.close(tx, session, msg);
    });
  }

  /** Whether the session's kept end can be carried out now (every final it counts is stored). */
  static endDue(session: LiveSessionRow): boolean {
    return (
      session.pendingEnd !== null &&
      !session.endedAt &&
      session.lineCount >= Math.max(session.pendingEnd.final_count, session.finalCount)
    );
  }

  /**
   * Closes the gaps of open sessions whose newest line is older than `gapSeconds`: a lost
   * marker at each missing place up to the highest seq (or the kept end's count), and the
   * kept end carried out. At most `limit` sessions a call.
   */
  async closeGaps(gapSeconds: number, limit = 100): Promise<Array<ClosedGap & { end: EndResult | null }>> {
    const due = await this.db.query<{ transcript_id: string }>(
      `select transcript_id from ${this.sessions}
        where ended_at is null and (line_count < final_count or pending_end is not null)
          and last_line_at < now() - make_interval(secs => $1)
        order by last_line_at limit $2`,
      [gapSeconds, limit],
    );
    const closed: Array<ClosedGap & { end: EndResult | null }> = [];
    for (const { transcript_id: id } of due) {
      const r = await this.db.transaction(async (tx) => {
        const session = await this.lockSession(tx, String(id));
        if (!session || session.endedAt) return null;
        const upTo = Math.max(session.finalCount, session.pendingEnd?.final_count ?? 0);
        const rows = await tx.query<Record<string, unknown>>(
          `insert into ${this.lines}
                  (transcript_id, seq, utterance_id, speaker_tag, text, start_seconds, end_seconds, lost)
           select $1, g, 'lost:' || g, '0'::jsonb, '', t, t, true
             from generate_series(1, $2::int) g,
                  lateral (select coalesce(max(l.end_seconds), 0) as t from ${this.lines} l
                            where l.transcript_id = $1 and l.seq < g) prev
            where not exists (select 1 from ${this.lines} l where l.transcript_id = $1 and l.seq = g)
           on conflict do nothing
           returning *`,
          [session.transcriptId, upTo],
        );
        const markers = rows.map((row) => toLine(row, session.startedAt)).sort((x, y) => x.seq - y.seq);
        await tx.query(
          `update ${this.sessions} set line_count = line_count + $2, final_count = greatest(final_count, $3)
            where transcript_id = $1`,
          [session.transcriptId, markers.length, upTo],
        );
        const after = { ...session, lineCount: session.lineCount + markers.length, finalCount: upTo };
        const end = after.pendingEnd ? await this.close(tx, after, after.pendingEnd) : null;
        return { session: after, markers, end };
      });
      if (r) closed.push(r);
    }
    return closed;
  }

  private async close(
    tx: Queryable,
    session: LiveSessionRow,
    msg: LiveSessionEnd,
  ): Promise<{ kind: 'ended'; session: LiveSessionRow }> {
    const lines = await this.linesAfter(tx, msg.transcript_id, 0, Number.MAX_SAFE_INTEGER, session.startedAt);
    const content = contentOf(lines);
    const [ended] = await tx.query<{ ended_at: unknown }>(
      `update ${this.sessions}
          set ended_at = $2, error = $3, interim_count = greatest(interim_count, $4), pending_end = null
        where transcript_id = $1 returning ended_at`,
      [msg.transcript_id, msg.ended_at, msg.error ?? '', msg.interim_count ?? 0],
    );
    await tx.query(
      // A session the pipeline had to end (the speech provider stayed down) says why.
      `update ${this.transcripts}
          set status = 'ended', content = $2, preview = $3, last_activity = now(),
              transcription_error = $4
        where id = $1`,
      [msg.transcript_id, content, previewOf(content), msg.error ?? ''],
    );
    const endedAt = iso(ended!.ended_at);
    // Its usage record and, when anything was said, its automatic summary: committed with the
    // close, relayed by the outbox, so a bus failing at that moment loses neither.
    const usage: TranscriptionRecorded = {
      record_id: `live:${session.transcriptId}`,
      owner_id: session.ownerId,
      transcript_id: session.transcriptId,
      source: 'live',
      provider: session.provider,
      seconds: Math.max(0, (Date.parse(endedAt) - Date.parse(session.startedAt)) / 1000),
      recorded_at: endedAt,
    };
    await this.outbox.add(tx, {
      subject: transcriptionRecordedEvent.subject,
      payload: usage,
      msgId: usage.record_id,
    });
    if (lines.some((l) => !l.lost)) {
      await this.outbox.add(tx, {
        subject: transcriptReadyForSummaryEvent.subject,
        payload: { owner_id: session.ownerId, transcript_id: session.transcriptId },
        msgId: summaryMsgId(session.transcriptId),
      });
    }
    return {
      kind: 'ended',
      session: { ...session, endedAt, error: msg.error ?? '', pendingEnd: null },
    };
  }

  /** An ended session's content again from its lines, in order (a final that came after the end). */
  private async rebuildContent(id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const session = await this.lockSession(tx, id);
      if (!session) return;
      const content = contentOf(await this.linesAfter(tx, id, 0, Number.MAX_SAFE_INTEGER, session.startedAt));
      await tx.query(`update ${this.transcripts} set content = $2 where id = $1 and status = 'ended'`, [
        id,
        content,
      ]);
    });
  }
}

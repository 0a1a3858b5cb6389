import {
  liveContent as contentOf,
  liveLineText as lineText,
  type LiveLine,
  type LiveSessionEnd,
  type LiveSessionStart,
  type LiveUtterance,
} from '@chronicler/contracts';
import { isUuid, type DatabaseHandle, type Queryable } from '@chronicler/kit';
import { previewOf } from '../validation.ts';

/**
 * A session is stalled when its last line was stored longer ago than this: only then may a
 * final (or the end) go on without the finals before it, which are then taken as lost. A
 * killed replica's unacked messages come back after the consumer's 5 s ack wait; but when
 * the whole machine stalls (a CI run saw it with 10 s), the missing final is merely queued
 * for its next delivery, and a later one must not take its place. Only a pipeline that died
 * between numbering a final and publishing it loses one, and the voice bot journals each
 * first: waiting half a minute for it costs a rare live view half a minute, never the order.
 */
export const STALL_SECONDS = 30;

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

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
}

export type AppendResult =
  | { kind: 'stored' | 'duplicate'; session: LiveSessionRow; line: LiveLine }
  /** No start stored yet (a final overtook its start on the stream): try again later. */
  | { kind: 'not-started' }
  /** Finals before this one (by final_index) are not stored yet: try again later. */
  | { kind: 'out-of-order'; stored: number };

export type EndResult =
  | { kind: 'ended' | 'already-ended'; session: LiveSessionRow }
  | { kind: 'not-started' }
  /** The pipeline published more finals than are stored: some are still on their way. */
  | { kind: 'waiting'; stored: number; expected: number };

/** What a joining viewer gets. */
export interface JoinView {
  session: LiveSessionRow;
  status: 'active' | 'ended';
  lines: LiveLine[];
  more: boolean;
}

/**
 * Queries of live sessions and their lines. Writes of one session serialise on its
 * live_sessions row (`for update`), which is what makes the sequence gap-free.
 */
export class LiveStore {
  private readonly transcripts: string;
  private readonly sessions: string;
  private readonly lines: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.transcripts = `"${schema}".transcripts`;
    this.sessions = `"${schema}".live_sessions`;
    this.lines = `"${schema}".transcript_lines`;
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
   * Stores a final utterance once and gives it the next seq. A redelivered utterance answers
   * its stored line ('duplicate'). A line that arrives after the end is kept too (nothing
   * said is lost) and appended to the ended transcript's content. A final whose
   * final_index is ahead of what is stored waits ('out-of-order'), unless `force` and the
   * session has stalled (no line stored for STALL_SECONDS): while earlier finals are still
   * being stored (a backlog after a restart drains) nothing jumps the queue.
   */
  async append(u: LiveUtterance, force = false): Promise<AppendResult> {
    // One statement, one round trip: a final is the hot path of every live session (the
    // benchmark found seven sequential round trips queueing up under load). The session row
    // is locked first, so finals of one session take their seq one after another. A statement
    // that waited for that lock reads the row as the store before it left it (final_count,
    // last_line_at), but its snapshot of the lines is older: nothing here may depend on lines
    // stored by the statement it waited for (a duplicate among them fails the unique key and
    // comes back as 'duplicate' on its next delivery).
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
         select $1, s.final_count + 1, $2, $3::jsonb, $4, $5, $6, $7, $8 from s
          where not exists (select 1 from existing)
            and ($9::int is null or $9::int <= s.final_count + 1
                 or ($10::boolean and not ${this.storedWithin('s.last_line_at', '$13')}))
         returning *
       ), counted as (
         -- Data-modifying parts run once whether or not the final select reads them.
         update ${this.sessions} ls
            set final_count = ins.seq, interim_count = greatest(ls.interim_count, $11),
                last_line_at = ins.stored_at
           from ins where ls.transcript_id = ins.transcript_id
         returning 1
       ), touched as (
         -- The preview is the first 100 characters: only the first lines change it. A line
         -- after the end (nothing said is lost) is appended to the ended transcript's content.
         update ${this.transcripts} t
            set last_activity = now(),
                preview = case when length(t.preview) > 100 then t.preview
                               when length(case when t.preview = '' then $12 else t.preview || E'\\n' || $12 end) > 100
                                 then left(case when t.preview = '' then $12 else t.preview || E'\\n' || $12 end, 100) || '...'
                               else case when t.preview = '' then $12 else t.preview || E'\\n' || $12 end end,
                content = case when t.status = 'ended' then
                            case when t.content = '' then $12 else t.content || E'\\n' || $12 end
                          else t.content end
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
        u.final_index ?? null,
        force,
        u.interim_count ?? 0,
        display,
        STALL_SECONDS,
      ],
    );
    const row = r?.session ? toSession(parseJson(r.session)) : null;
    if (!row) return { kind: 'not-started' };
    if (r!.existing)
      return { kind: 'duplicate', session: row, line: toLine(parseJson(r!.existing), row.startedAt) };
    if (!r!.inserted) return { kind: 'out-of-order', stored: row.finalCount };
    const line = toLine(parseJson(r!.inserted), row.startedAt);
    return { kind: 'stored', session: { ...row, finalCount: line.seq }, line };
  }

  /**
   * Ends the session: the transcript becomes 'ended' with its content built from the lines.
   * Until `expected` finals are stored the end waits ('waiting'), unless `force` (the finals
   * that are missing never came: the pipeline crashed between publishing them and the end).
   */
  async end(msg: LiveSessionEnd, force: boolean): Promise<EndResult> {
    return this.db.transaction(async (tx) => {
      const session = await this.lockSession(tx, msg.transcript_id);
      if (!session) return { kind: 'not-started' };
      if (session.endedAt) return { kind: 'already-ended', session };
      if (
        session.finalCount < msg.final_count &&
        (!force || (await this.storedLately(tx, session.transcriptId)))
      ) {
        return { kind: 'waiting', stored: session.finalCount, expected: msg.final_count };
      }
      const lines = await this.linesAfter(
        tx,
        msg.transcript_id,
        0,
        Number.MAX_SAFE_INTEGER,
        session.startedAt,
      );
      const content = contentOf(lines);
      const [ended] = await tx.query<{ ended_at: unknown }>(
        `update ${this.sessions}
            set ended_at = $2, error = $3, interim_count = greatest(interim_count, $4)
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
      return {
        kind: 'ended',
        session: { ...session, endedAt: iso(ended!.ended_at), error: msg.error ?? '' },
      };
    });
  }

  /** The owner's live session with the lines after `afterSeq`, or null (not the owner's, not live). */
  async join(ownerId: string, id: string, afterSeq: number, limit: number): Promise<JoinView | null> {
    if (!isUuid(id)) return null;
    const session = await this.readSession(this.db, id);
    if (!session || session.ownerId !== ownerId) return null;
    const [t] = await this.db.query<{ status: string }>(
      `select status from ${this.transcripts} where id = $1`,
      [id],
    );
    const lines = await this.linesAfter(this.db, id, afterSeq, limit + 1, session.startedAt);
    const more = lines.length > limit;
    return {
      session,
      status: t?.status === 'active' ? 'active' : 'ended',
      lines: more ? lines.slice(0, limit) : lines,
      more,
    };
  }

  /** Every stored line of an active session, as its content reads so far. */
  async contentSoFar(id: string): Promise<string | null> {
    const session = await this.readSession(this.db, id);
    if (!session) return null;
    return contentOf(await this.linesAfter(this.db, id, 0, Number.MAX_SAFE_INTEGER, session.startedAt));
  }

  /** Live sessions started and not ended, of every owner (for the live sessions gauge). */
  async openCount(): Promise<number> {
    const [r] = await this.db.query<{ n: number | string }>(
      `select count(*) as n from ${this.sessions} where ended_at is null`,
    );
    return Number(r?.n ?? 0);
  }

  /** Counters of the owner's open sessions, by transcript id. */
  async counters(
    ownerId: string,
  ): Promise<Map<string, { finals: number; interims: number; startedAt: string }>> {
    const rows = await this.db.query<Record<string, unknown>>(
      `select transcript_id, final_count, interim_count, started_at from ${this.sessions}
        where owner_id = $1 and ended_at is null`,
      [ownerId],
    );
    return new Map(
      rows.map((r) => [
        String(r.transcript_id),
        { finals: Number(r.final_count), interims: Number(r.interim_count), startedAt: iso(r.started_at) },
      ]),
    );
  }

  /** Whether the session's last line was stored within STALL_SECONDS (its finals still arrive). */
  private async storedLately(q: Queryable, id: string): Promise<boolean> {
    const [r] = await q.query<{ fresh: boolean }>(
      `select ${this.storedWithin('last_line_at', '$2')} as fresh from ${this.sessions} where transcript_id = $1`,
      [id, STALL_SECONDS],
    );
    return r?.fresh === true;
  }

  /**
   * SQL that is true when `lastLineAt` (a session's last_line_at, read from its locked row)
   * is less than `seconds` ago: the stall rule, shared by append (a final may jump the queue)
   * and end (may give up waiting).
   */
  private storedWithin(lastLineAt: string, seconds: string): string {
    return `(${lastLineAt} > now() - make_interval(secs => ${seconds}))`;
  }

  private async lockSession(tx: Queryable, id: string): Promise<LiveSessionRow | null> {
    return this.readSession(tx, id, true);
  }

  private async readSession(q: Queryable, id: string, forUpdate = false): Promise<LiveSessionRow | null> {
    const [r] = await q.query<Record<string, unknown>>(
      `select s.*, t.name from ${this.sessions} s join ${this.transcripts} t on t.id = s.transcript_id
        where s.transcript_id = $1 ${forUpdate ? 'for update of s' : ''}`,
      [id],
    );
    return r ? toSession(r) : null;
  }

  private async linesAfter(
    q: Queryable,
    id: string,
    afterSeq: number,
    limit: number,
    startedAt: string,
  ): Promise<LiveLine[]> {
    const rows = await q.query<Record<string, unknown>>(
      `select * from ${this.lines} where transcript_id = $1 and seq > $2 order by seq limit $3`,
      [id, afterSeq, Math.min(limit, 1_000_000)],
    );
    return rows.map((r) => toLine(r, startedAt));
  }
}

function toLine(r: Record<string, unknown>, startedAt: string): LiveLine {
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
  };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

function toSession(r: Record<string, unknown>): LiveSessionRow {
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
  };
}

/** PGlite answers row_to_json as an object, node-postgres too; text only from older drivers. */
function parseJson(v: unknown): Record<string, unknown> {
  return (typeof v === 'string' ? JSON.parse(v) : v) as Record<string, unknown>;
}

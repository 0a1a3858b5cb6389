import { liveContent as contentOf, type LiveLine } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle, type Queryable } from '@chronicler/kit';
import { iso, toLine, toSession, type JoinView, type LiveSessionRow } from './live-rows.ts';

/**
 * What reads a live session and its lines: a viewer joining, the content so far, the open
 * sessions' counters. LiveStore (live-store.ts) adds the writes on top.
 */
export class LiveReads {
  protected readonly transcripts: string;
  protected readonly sessions: string;
  protected readonly lines: string;
  constructor(
    protected readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.transcripts = `"${schema}".transcripts`;
    this.sessions = `"${schema}".live_sessions`;
    this.lines = `"${schema}".transcript_lines`;
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

  /**
   * The start and end (seconds, as the pipeline gave them) of each line of a live session's
   * content, in its order (lost markers are not content); the content keeps whole seconds.
   */
  async lineTimes(id: string): Promise<[number, number | null][]> {
    if (!isUuid(id)) return [];
    const rows = await this.db.query<{ start_seconds: unknown; end_seconds: unknown }>(
      `select start_seconds, end_seconds from ${this.lines}
        where transcript_id = $1 and not coalesce(lost, false) order by seq`,
      [id],
    );
    return rows.map((r) => [Number(r.start_seconds), Number(r.end_seconds)]);
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

  protected async lockSession(tx: Queryable, id: string): Promise<LiveSessionRow | null> {
    return this.readSession(tx, id, true);
  }

  protected async readSession(q: Queryable, id: string, forUpdate = false): Promise<LiveSessionRow | null> {
    const [r] = await q.query<Record<string, unknown>>(
      `select s.*, t.name from ${this.sessions} s join ${this.transcripts} t on t.id = s.transcript_id
        where s.transcript_id = $1 ${forUpdate ? 'for update of s' : ''}`,
      [id],
    );
    return r ? toSession(r) : null;
  }

  protected async linesAfter(
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

import type { AiRequestRecorded, SpeechStreamRecorded, TranscriptionRecorded } from '@chronicler/contracts';
import type { DatabaseHandle } from '@chronicler/kit';

/** A half-open time window [from, to). */
export interface TimeWindow {
  from: Date;
  to: Date;
}

/** One row of ai_requests as the admin dashboard lists it. */
export interface AiRequestRow {
  record_id: string;
  user_id: string;
  request_type: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  estimated_cost_usd: number;
  success: boolean;
  processing_time_ms: number;
  created_at: string;
}

/** A live session that has started and not ended. */
export interface ActiveSessionRow {
  transcript_id: string;
  owner_id: string;
  started_at: string;
}

/** One user's usage in a window (user metrics). */
export interface UserUsageRow {
  user_id: string;
  ai_requests: number;
  input_tokens: number;
  output_tokens: number;
  estimated_cost_usd: number;
  seconds: number;
}

/** One session's rows of the ledger (see UsageStore.sessionUsage). */
export interface SessionUsageRows {
  streams: { speaker_key: string; provider: string; streams: number; seconds: number }[];
  transcribed: { source: string; provider: string; seconds: number }[];
  ai: {
    request_type: string;
    requests: number;
    input_tokens: number;
    output_tokens: number;
    cost_usd: number;
  }[];
}

const num = (v: unknown): number => Number(v ?? 0);
const iso = (v: unknown): string => (v instanceof Date ? v : new Date(String(v))).toISOString();

/** Every query of the admin_stats schema, so handlers and consumers never spell SQL. */
export class UsageStore {
  private readonly transcription: string;
  private readonly aiRequests: string;
  private readonly liveSessions: string;
  private readonly streams: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.transcription = `"${schema}".transcription_usage`;
    this.aiRequests = `"${schema}".ai_requests`;
    this.liveSessions = `"${schema}".live_sessions`;
    this.streams = `"${schema}".speech_stream_usage`;
  }

  /** Records one provider stream's open seconds once per record id; false for one already kept. */
  async recordSpeechStream(r: SpeechStreamRecorded, recordedAt: Date): Promise<boolean> {
    const rows = await this.db.query<{ record_id: string }>(
      `insert into ${this.streams}
              (record_id, owner_id, transcript_id, speaker_key, provider, seconds, recorded_at)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (record_id) do nothing
       returning record_id`,
      [
        r.record_id,
        r.owner_id,
        r.transcript_id,
        r.speaker_key,
        r.provider,
        r.seconds,
        recordedAt.toISOString(),
      ],
    );
    return rows.length > 0;
  }

  /** Stream seconds per UTC day, and how many speakers of how many sessions they were. */
  async streamSecondsPerDay(w: TimeWindow): Promise<{ date: string; seconds: number; speakers: number }[]> {
    const rows = await this.db.query<{ date: string; s: unknown; n: unknown }>(
      `select to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD') as date, sum(seconds) as s,
              count(distinct (transcript_id, speaker_key)) as n
         from ${this.streams} where recorded_at >= $1 and recorded_at < $2 group by 1 order by 1`,
      [w.from.toISOString(), w.to.toISOString()],
    );
    return rows.map((r) => ({ date: r.date, seconds: num(r.s), speakers: num(r.n) }));
  }

  /** Records transcription usage once per record id; answers false for a record already kept. */
  async recordTranscription(r: TranscriptionRecorded, recordedAt: Date): Promise<boolean> {
    const rows = await this.db.query<{ record_id: string }>(
      `insert into ${this.transcription}
              (record_id, owner_id, transcript_id, source, provider, seconds, recorded_at)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (record_id) do nothing
       returning record_id`,
      [r.record_id, r.owner_id, r.transcript_id, r.source, r.provider, r.seconds, recordedAt.toISOString()],
    );
    return rows.length > 0;
  }

  /** Records an AI request once per record id; answers false for a record already kept. */
  async recordAiRequest(r: AiRequestRecorded, createdAt: Date): Promise<boolean> {
    const rows = await this.db.query<{ record_id: string }>(
      `insert into ${this.aiRequests}
              (record_id, user_id, request_type, model, input_tokens, output_tokens,
               estimated_cost_usd, success, processing_time_ms, created_at, transcript_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       on conflict (record_id) do nothing
       returning record_id`,
      [
        r.record_id,
        r.user_id,
        r.request_type,
        r.model,
        r.input_tokens,
        r.output_tokens,
        r.estimated_cost_usd,
        r.success,
        r.processing_time_ms,
        createdAt.toISOString(),
        r.transcript_id ?? '',
      ],
    );
    return rows.length > 0;
  }

  /** Seconds of audio transcribed for the owner in the window. */
  async transcriptionSeconds(ownerId: string, w: TimeWindow): Promise<number> {
    const [r] = await this.db.query<{ seconds: number | string | null }>(
      `select coalesce(sum(seconds), 0) as seconds from ${this.transcription}
        where owner_id = $1 and recorded_at >= $2 and recorded_at < $3`,
      [ownerId, w.from.toISOString(), w.to.toISOString()],
    );
    return Number(r?.seconds ?? 0);
  }

  /** The owner's AI requests in the window, failed ones included (they were made). */
  async aiRequestCount(ownerId: string, w: TimeWindow): Promise<number> {
    const [r] = await this.db.query<{ n: number | string | bigint }>(
      `select count(*) as n from ${this.aiRequests}
        where user_id = $1 and created_at >= $2 and created_at < $3`,
      [ownerId, w.from.toISOString(), w.to.toISOString()],
    );
    return Number(r?.n ?? 0);
  }

  /** A live session started; an end that came first is kept (the session stays ended). */
  async liveSessionStarted(transcriptId: string, ownerId: string, startedAt: Date): Promise<void> {
    await this.db.query(
      `insert into ${this.liveSessions} (transcript_id, owner_id, started_at) values ($1, $2, $3)
       on conflict (transcript_id) do update set owner_id = excluded.owner_id, started_at = excluded.started_at`,
      [transcriptId, ownerId, startedAt.toISOString()],
    );
  }

  /** A live session ended; the first end seen counts (the pipeline's end, or the stored close). */
  async liveSessionEnded(transcriptId: string, ownerId: string, endedAt: Date): Promise<void> {
    await this.db.query(
      `insert into ${this.liveSessions} (transcript_id, owner_id, ended_at) values ($1, $2, $3)
       on conflict (transcript_id) do update set
         ended_at = coalesce(${this.liveSessions}.ended_at, excluded.ended_at),
         owner_id = case when ${this.liveSessions}.owner_id = '' then excluded.owner_id
                         else ${this.liveSessions}.owner_id end`,
      [transcriptId, ownerId, endedAt.toISOString()],
    );
  }

  /** Live sessions running now: how many, and the `limit` longest-running. */
  async activeSessions(limit: number): Promise<{ count: number; rows: ActiveSessionRow[] }> {
    const [count, rows] = await Promise.all([
      this.db.query<{ n: unknown }>(
        `select count(*) as n from ${this.liveSessions} where ended_at is null and started_at is not null`,
      ),
      this.db.query<{ transcript_id: string; owner_id: string; started_at: unknown }>(
        `select transcript_id, owner_id, started_at from ${this.liveSessions}
          where ended_at is null and started_at is not null
          order by started_at, transcript_id limit $1`,
        [limit],
      ),
    ]);
    return {
      count: num(count[0]?.n),
      rows: rows.map((r) => ({
        transcript_id: r.transcript_id,
        owner_id: r.owner_id,
        started_at: iso(r.started_at),
      })),
    };
  }

  /** The newest `limit` AI requests, newest first. */
  async recentAiRequests(limit: number): Promise<AiRequestRow[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `select record_id, user_id, request_type, model, input_tokens, output_tokens,
              estimated_cost_usd, success, processing_time_ms, created_at
         from ${this.aiRequests} order by created_at desc, record_id desc limit $1`,
      [limit],
    );
    return rows.map((r) => ({
      record_id: String(r.record_id),
      user_id: String(r.user_id),
      request_type: String(r.request_type),
      model: String(r.model),
      input_tokens: num(r.input_tokens),
      output_tokens: num(r.output_tokens),
      estimated_cost_usd: num(r.estimated_cost_usd),
      success: r.success === true,
      processing_time_ms: num(r.processing_time_ms),
      created_at: iso(r.created_at),
    }));
  }

  /** Input and output tokens of every AI request per UTC day in the window (days without any left out). */
  async tokensPerDay(
    w: TimeWindow,
  ): Promise<{ date: string; input_tokens: number; output_tokens: number; cost_usd: number }[]> {
    const rows = await this.db.query<{ date: string; i: unknown; o: unknown; c: unknown }>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as date,
              sum(input_tokens) as i, sum(output_tokens) as o, sum(estimated_cost_usd) as c
         from ${this.aiRequests} where created_at >= $1 and created_at < $2 group by 1 order by 1`,
      [w.from.toISOString(), w.to.toISOString()],
    );
    return rows.map((r) => ({
      date: r.date,
      input_tokens: num(r.i),
      output_tokens: num(r.o),
      cost_usd: num(r.c),
    }));
  }

  /** Seconds transcribed (every user) per UTC day in the window (days without any left out). */
  async transcriptionSecondsPerDay(w: TimeWindow): Promise<{ date: string; seconds: number }[]> {
    const rows = await this.db.query<{ date: string; s: unknown }>(
      `select to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD') as date, sum(seconds) as s
         from ${this.transcription} where recorded_at >= $1 and recorded_at < $2 group by 1 order by 1`,
      [w.from.toISOString(), w.to.toISOString()],
    );
    return rows.map((r) => ({ date: r.date, seconds: num(r.s) }));
  }

  /**
   * Usage per user in the window: the `limit` busiest (most AI requests, then most seconds),
   * and the totals over every user (window sums, taken before the limit).
   */
  async usagePerUser(
    w: TimeWindow,
    limit: number,
  ): Promise<{
    users: UserUsageRow[];
    totals: { users: number; ai_requests: number; seconds: number; estimated_cost_usd: number };
  }> {
    const rows = await this.db.query<Record<string, unknown>>(
      `with ai as (
         select user_id, count(*) as n, sum(input_tokens) as i, sum(output_tokens) as o,
                sum(estimated_cost_usd) as c
           from ${this.aiRequests} where created_at >= $1 and created_at < $2 group by user_id
       ), tr as (
         select owner_id as user_id, sum(seconds) as s
           from ${this.transcription} where recorded_at >= $1 and recorded_at < $2 group by owner_id
       ), u as (
         select coalesce(ai.user_id, tr.user_id) as user_id, coalesce(ai.n, 0) as n, coalesce(ai.i, 0) as i,
                coalesce(ai.o, 0) as o, coalesce(ai.c, 0) as c, coalesce(tr.s, 0) as s
           from ai full outer join tr on ai.user_id = tr.user_id
       )
       select *, count(*) over () as total_users, sum(n) over () as total_n,
              sum(s) over () as total_s, sum(c) over () as total_c
         from u order by n desc, s desc, user_id limit $3`,
      [w.from.toISOString(), w.to.toISOString(), limit],
    );
    const first = rows[0];
    return {
      users: rows.map((r) => ({
        user_id: String(r.user_id),
        ai_requests: num(r.n),
        input_tokens: num(r.i),
        output_tokens: num(r.o),
        estimated_cost_usd: num(r.c),
        seconds: num(r.s),
      })),
      totals: {
        users: num(first?.total_users),
        ai_requests: num(first?.total_n),
        seconds: num(first?.total_s),
        estimated_cost_usd: num(first?.total_c),
      },
    };
  }

  /** One session's ledger: its speech streams per speaker, its transcribed seconds, its AI requests. */
  async sessionUsage(ownerId: string, transcriptId: string): Promise<SessionUsageRows> {
    const streams = await this.db.query<{
      speaker_key: string;
      provider: string;
      streams: unknown;
      seconds: unknown;
    }>(
      `select speaker_key, provider, count(*) as streams, sum(seconds) as seconds from ${this.streams}
        where owner_id = $1 and transcript_id = $2 group by speaker_key, provider order by speaker_key`,
      [ownerId, transcriptId],
    );
    const transcribed = await this.db.query<{ source: string; provider: string; seconds: unknown }>(
      `select source, provider, sum(seconds) as seconds from ${this.transcription}
        where owner_id = $1 and transcript_id = $2 group by source, provider`,
      [ownerId, transcriptId],
    );
    const ai = await this.db.query<{
      request_type: string;
      requests: unknown;
      input_tokens: unknown;
      output_tokens: unknown;
      cost: unknown;
    }>(
      `select request_type, count(*) as requests, sum(input_tokens) as input_tokens,
              sum(output_tokens) as output_tokens, sum(estimated_cost_usd) as cost from ${this.aiRequests}
        where user_id = $1 and transcript_id = $2 group by request_type order by request_type`,
      [ownerId, transcriptId],
    );
    return {
      streams: streams.map((r) => ({
        speaker_key: r.speaker_key,
        provider: r.provider,
        streams: num(r.streams),
        seconds: num(r.seconds),
      })),
      transcribed: transcribed.map((r) => ({
        source: r.source,
        provider: r.provider,
        seconds: num(r.seconds),
      })),
      ai: ai.map((r) => ({
        request_type: r.request_type,
        requests: num(r.requests),
        input_tokens: num(r.input_tokens),
        output_tokens: num(r.output_tokens),
        cost_usd: num(r.cost),
      })),
    };
  }
}

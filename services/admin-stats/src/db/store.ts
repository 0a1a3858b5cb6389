import type { AiRequestRecorded, TranscriptionRecorded } from '@chronicler/contracts';
import type { DatabaseHandle } from '@chronicler/kit';

/** A half-open time window [from, to). */
export interface TimeWindow {
  from: Date;
  to: Date;
}

/** Every query of the admin_stats schema, so handlers and consumers never spell SQL. */
export class UsageStore {
  private readonly transcription: string;
  private readonly aiRequests: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.transcription = `"${schema}".transcription_usage`;
    this.aiRequests = `"${schema}".ai_requests`;
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
               estimated_cost_usd, success, processing_time_ms, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
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
}

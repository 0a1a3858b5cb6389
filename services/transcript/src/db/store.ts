import type { TranscriptListItem } from '@chronicler/contracts';
import { isUuid } from '@chronicler/kit';
import {
  ITEM_COLUMNS,
  toItem,
  toStoredAudio,
  TRANSCRIPTION_STATES,
  type AudioJobState,
  type NewAudioTranscript,
  type StoredAudio,
  type StoredAudioRow,
  type WithinWrite,
} from './store-rows.ts';
import { TranscriptRows } from './transcript-rows.ts';

/**
 * Every query of the transcript schema, so handlers never spell SQL; every query filters by
 * owner. The sessions' rows and notes are TranscriptRows'; here are the states an uploaded
 * recording's transcription and a session's summary go through.
 */
/**
 * Each stored line's start and end (seconds, to the millisecond) as the speech-to-text
 * provider gave them, in the order of the content's lines; end null when it gave none.
 */
export type LineTimes = [number, number | null][];

export class TranscriptStore extends TranscriptRows {
  /**
   * A session made from an uploaded recording: no content yet, transcription queued. `within`
   * runs in the insert's transaction (queueing its job commits with it).
   */
  async createAudio(
    ownerId: string,
    t: NewAudioTranscript,
    within: WithinWrite<TranscriptListItem>,
  ): Promise<TranscriptListItem> {
    return this.db.transaction(async (tx) => {
      const [r] = await tx.query<Record<string, unknown>>(
        `insert into ${this.table}
              (owner_id, group_id, name, session_timestamp, summary, source, status,
               transcription_status, transcription_provider, audio_blob, audio_size, audio_format)
       values ($1, $2, $3, $4, $5, 'audio', 'ended', case when $6 = '' then 'none' else 'queued' end,
               $6, $7, $8, $9)
       returning ${ITEM_COLUMNS}`,
        [
          ownerId,
          t.groupId,
          t.name,
          t.sessionTimestamp,
          t.summary,
          t.provider,
          t.audio.blob,
          t.audio.size,
          t.audio.format,
        ],
      );
      const item = toItem(r!);
      await within(tx, item);
      return item;
    });
  }

  async audioJobState(ownerId: string, id: string): Promise<AudioJobState | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<{ transcription_status: string; transcription_job_id: string }>(
      `select transcription_status, transcription_job_id from ${this.table}
        where id = $1 and owner_id = $2 and source in ('audio', 'live')`,
      [id, ownerId],
    );
    if (!r) return null;
    return {
      status: (TRANSCRIPTION_STATES.has(r.transcription_status)
        ? r.transcription_status
        : 'none') as AudioJobState['status'],
      jobId: r.transcription_job_id,
    };
  }

  /** queued -> processing (a redelivery finds it processing already); the provider's job id when known. */
  async markAudioProcessing(ownerId: string, id: string, jobId?: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      `update ${this.table}
          set transcription_status = 'processing',
              transcription_job_id = coalesce($3::text, transcription_job_id)
        where id = $1 and owner_id = $2 and transcription_status in ('queued', 'processing')
       returning id`,
      [id, ownerId, jobId ?? null],
    );
    return rows.length > 0;
  }

  /**
   * Writes the transcript, its preview and length and 'completed' in one statement, so a
   * reader sees either no transcript or all of it. False when the session is gone or was
   * already finished (a redelivered job).
   */
  /** `within` runs in the update's transaction when it completed the session (its usage and summary request). */
  async completeAudio(
    ownerId: string,
    id: string,
    r: {
      content: string;
      preview: string;
      audioSeconds: number;
      provider: string;
      /** Each stored line's [start, end] in seconds, as the provider gave them. */
      lineTimes: LineTimes;
    },
    within: WithinWrite<TranscriptListItem>,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<Record<string, unknown>>(
        `update ${this.table}
            set content = $3, preview = $4, audio_seconds = $5, transcription_provider = $6,
                line_times = $7::jsonb,
                transcription_status = 'completed', transcription_error = '', last_activity = now(),
                audio_blob = ''
          where id = $1 and owner_id = $2 and transcription_status in ('queued', 'processing')
         returning ${ITEM_COLUMNS}`,
        [id, ownerId, r.content, r.preview, r.audioSeconds, r.provider, JSON.stringify(r.lineTimes)],
      );
      if (!row) return false;
      await within(tx, toItem(row));
      return true;
    });
  }

  /** The provider's times of the owner's session's lines (see LineTimes), or null. */
  async lineTimes(ownerId: string, id: string): Promise<LineTimes | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.db.query<{ line_times: unknown }>(
      `select line_times from ${this.table} where id = $1 and owner_id = $2`,
      [id, ownerId],
    );
    return Array.isArray(row?.line_times) ? (row.line_times as LineTimes) : null;
  }

  /**
   * none -> queued ("Transcribe now"): the recording copied for the job (`audio`) becomes the
   * session's upload, with the provider that will transcribe it. False when the session is
   * not an audio session waiting for a transcript (another request queued it first).
   */
  async queueUntranscribed(
    ownerId: string,
    id: string,
    provider: string,
    audio: StoredAudio,
    within: WithinWrite<StoredAudio>,
  ): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ id: string }>(
        `update ${this.table}
            set transcription_status = 'queued', transcription_error = '', transcription_job_id = '',
                transcription_provider = $3, audio_blob = $4, audio_size = $5, audio_format = $6
          where id = $1 and owner_id = $2 and source = 'audio' and transcription_status = 'none'
         returning id`,
        [id, ownerId, provider, audio.blob, audio.size, audio.format],
      );
      if (rows.length === 0) return false;
      await within(tx, audio);
      return true;
    });
  }

  /**
   * none -> queued ("Transcribe now") for an ended voice-bot session with no lines (recorded
   * while no provider was set): its speakers' kept tracks are the job's audio. False when the
   * session is not one (another request queued it first, or it has lines).
   */
  async queueUntranscribedTracks(
    ownerId: string,
    id: string,
    provider: string,
    within: WithinWrite<null>,
  ): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ id: string }>(
        `update ${this.table}
            set transcription_status = 'queued', transcription_error = '', transcription_job_id = '',
                transcription_provider = $3
          where id = $1 and owner_id = $2 and source = 'live' and status = 'ended'
            and transcription_status = 'none' and content = ''
         returning id`,
        [id, ownerId, provider],
      );
      if (rows.length === 0) return false;
      await within(tx, null);
      return true;
    });
  }

  /**
   * failed -> queued again, for a recording still stored; its blob, size and format, or null
   * when the session is not a failed audio session with a stored recording. `within` runs in
   * the update's transaction (queueing the new job commits with it).
   */
  async requeueAudio(
    ownerId: string,
    id: string,
    within: WithinWrite<StoredAudio>,
  ): Promise<StoredAudio | null> {
    if (!isUuid(id)) return null;
    return this.db.transaction(async (tx) => {
      const [r] = await tx.query<StoredAudioRow>(
        `update ${this.table}
            set transcription_status = 'queued', transcription_error = '', transcription_job_id = ''
          where id = $1 and owner_id = $2 and source = 'audio' and transcription_status = 'failed'
            and audio_blob <> ''
         returning audio_blob, audio_size, audio_format`,
        [id, ownerId],
      );
      if (!r) return null;
      const audio = toStoredAudio(r);
      await within(tx, audio);
      return audio;
    });
  }

  /**
   * failed -> queued again for a voice-bot session transcribed from its speakers' tracks, while
   * any is still kept. False when it is not one (another request queued it first, or it was deleted).
   */
  async requeueTracks(ownerId: string, id: string, within: WithinWrite<null>): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ id: string }>(
        `update ${this.table} t
            set transcription_status = 'queued', transcription_error = '', transcription_job_id = ''
          where id = $1 and owner_id = $2 and source = 'live' and status = 'ended'
            and transcription_status = 'failed'
            and exists (select 1 from ${this.tracks} k where k.transcript_id = t.id)
         returning id`,
        [id, ownerId],
      );
      if (rows.length === 0) return false;
      await within(tx, null);
      return true;
    });
  }

  /** The recording is gone (deleted, expired): the session can no longer be tried again. */
  async forgetAudio(ownerId: string, id: string): Promise<void> {
    if (!isUuid(id)) return;
    await this.db.query(`update ${this.table} set audio_blob = '' where id = $1 and owner_id = $2`, [
      id,
      ownerId,
    ]);
  }

  /** The stored recording of an audio session, or null. */
  async storedAudio(ownerId: string, id: string): Promise<StoredAudio | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<StoredAudioRow>(
      `select audio_blob, audio_size, audio_format from ${this.table}
        where id = $1 and owner_id = $2 and source = 'audio' and audio_blob <> ''`,
      [id, ownerId],
    );
    return r ? toStoredAudio(r) : null;
  }

  /** 'failed' with the reason; the content stays empty. */
  async failAudio(ownerId: string, id: string, message: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      `update ${this.table}
          set transcription_status = 'failed', transcription_error = $3, content = '', preview = ''
        where id = $1 and owner_id = $2 and transcription_status in ('queued', 'processing')
       returning id`,
      [id, ownerId, message],
    );
    return rows.length > 0;
  }

  /**
   * Marks an ended session without a summary 'generating' for its automatic summary. A
   * session already 'generating' is claimed again: that is a redelivery after the worker
   * that claimed it stopped mid-way.
   */
  async claimSummary(ownerId: string, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await this.db.query<{ id: string }>(
      `update ${this.table} set summary_status = 'generating'
        where id = $1 and owner_id = $2 and status = 'ended' and summary = ''
          and summary_status in ('none', 'generating')
       returning id`,
      [id, ownerId],
    );
    return rows.length > 0;
  }

  async setSummaryStatus(ownerId: string, id: string, status: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await this.db.query<{ id: string }>(
      `update ${this.table} set summary_status = $3 where id = $1 and owner_id = $2 returning id`,
      [id, ownerId, status],
    );
    return rows.length > 0;
  }

  /** Stores an AI summary of an ended session; 'active' when recording started again meanwhile. */
  async setGeneratedSummary(
    ownerId: string,
    id: string,
    summary: string,
    llmSummary: string,
  ): Promise<TranscriptListItem | 'active' | 'missing'> {
    if (!isUuid(id)) return 'missing';
    const [r] = await this.db.query<Record<string, unknown>>(
      `update ${this.table} set summary = $3, llm_summary = $4, summary_status = 'done', summary_outdated = false
        where id = $1 and owner_id = $2 and status <> 'active' returning ${ITEM_COLUMNS}`,
      [id, ownerId, summary, llmSummary],
    );
    if (r) return toItem(r);
    return (await this.getItem(ownerId, id)) ? 'active' : 'missing';
  }

  /** The raw AI summary of any owner's session (admins read it), or null. */
  async llmSummary(id: string): Promise<string | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<{ llm_summary: string }>(
      `select llm_summary from ${this.table} where id = $1`,
      [id],
    );
    return r ? String(r.llm_summary) : null;
  }
}

import type { Transcript, TranscriptListItem } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle, type Queryable } from '@chronicler/kit';

/** Work done in the transaction of a write, before it commits (the events announcing it). */
export type WithinWrite<T> = (tx: Queryable, written: T) => Promise<void>;

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

const ITEM_COLUMNS =
  'id, name, session_timestamp, created_at, last_activity, status, group_id, summary, preview, ' +
  'source, transcription_status, transcription_error, audio_seconds, summary_status';

const SOURCES = new Set(['live', 'manual', 'audio']);
const TRANSCRIPTION_STATES = new Set(['none', 'queued', 'processing', 'completed', 'failed']);
const SUMMARY_STATES = new Set(['none', 'generating', 'done', 'failed']);

function toItem(r: Record<string, unknown>): TranscriptListItem {
  return {
    id: String(r.id),
    name: String(r.name),
    session_timestamp: iso(r.session_timestamp),
    created_at: iso(r.created_at),
    last_activity: iso(r.last_activity),
    status: r.status === 'active' ? 'active' : 'ended',
    group_id: r.group_id ? String(r.group_id) : '',
    summary: String(r.summary),
    preview: String(r.preview),
    source: (SOURCES.has(String(r.source)) ? r.source : 'manual') as TranscriptListItem['source'],
    transcription_status: (TRANSCRIPTION_STATES.has(String(r.transcription_status))
      ? r.transcription_status
      : 'none') as TranscriptListItem['transcription_status'],
    transcription_error: String(r.transcription_error ?? ''),
    audio_seconds: Number(r.audio_seconds ?? 0),
    summary_status: (SUMMARY_STATES.has(String(r.summary_status))
      ? r.summary_status
      : 'none') as TranscriptListItem['summary_status'],
  };
}

export interface NewTranscript {
  name: string;
  sessionTimestamp: string;
  summary: string;
  content: string;
  preview: string;
  groupId: string | null;
}

/** A position in the session list: the last session of a page. */
export interface ListCursor {
  ts: string;
  created: string;
  id: string;
}

/** What GET /transcripts/active needs of a session row. */
export interface ActiveRow {
  id: string;
  session_timestamp: string;
  created_at: string;
  last_activity: string;
}

export interface TranscriptChanges {
  name: string;
  summary: string;
  sessionTimestamp?: string;
  content?: string;
  preview?: string;
}

export interface NewAudioTranscript {
  name: string;
  sessionTimestamp: string;
  summary: string;
  groupId: string | null;
  provider: string;
  /** The stored recording: its blob name, size in bytes and format. */
  audio: { blob: string; size: number; format: string };
}

/** The stored recording of an audio session. */
export interface StoredAudio {
  blob: string;
  size: number;
  format: string;
}

/** The columns of a stored recording (bigint comes back as text from node-postgres). */
interface StoredAudioRow {
  audio_blob: string;
  audio_size: string | number;
  audio_format: string;
}

const toStoredAudio = (r: StoredAudioRow): StoredAudio => ({
  blob: r.audio_blob,
  size: Number(r.audio_size),
  format: r.audio_format,
});

/** Where an audio session's transcription stands, for the worker. */
export interface AudioJobState {
  status: TranscriptListItem['transcription_status'];
  jobId: string;
}

/** Every query of the transcript schema, so handlers never spell SQL. Every query filters by owner. */
export class TranscriptStore {
  private readonly table: string;
  private readonly notes: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".transcripts`;
    this.notes = `"${schema}".notes`;
  }

  /**
   * Up to `limit` of the owner's sessions in list order after the cursor, each with the
   * cursor that points past it. The cursor keeps the timestamps as PostgreSQL's own text,
   * which round-trips their microseconds (an ISO string from JavaScript would not). The
   * index transcripts_owner_list serves the order and the cursor (no OFFSET, no sort); with
   * `groupId`, only that group's sessions (a group id that is not a uuid has none).
   */
  async listPage(
    ownerId: string,
    after: ListCursor | null,
    limit: number,
    groupId?: string,
  ): Promise<{ item: TranscriptListItem; cursor: ListCursor }[]> {
    if (groupId !== undefined && !isUuid(groupId)) return [];
    const rows = await this.db.query<Record<string, unknown>>(
      `select ${ITEM_COLUMNS}, session_timestamp::text as ts_key, created_at::text as created_key
         from ${this.table}
        where owner_id = $1
          and ($6::uuid is null or group_id = $6::uuid)
          and ($2::timestamptz is null
               or (session_timestamp, created_at, id) < ($2::timestamptz, $3::timestamptz, $4::uuid))
        order by session_timestamp desc, created_at desc, id desc
        limit $5`,
      [ownerId, after?.ts ?? null, after?.created ?? null, after?.id ?? null, limit, groupId ?? null],
    );
    return rows.map((r) => ({
      item: toItem(r),
      cursor: { ts: String(r.ts_key), created: String(r.created_key), id: String(r.id) },
    }));
  }

  /** The owner's sessions being recorded, newest first; like list(), never reads content. */
  async listActive(ownerId: string): Promise<ActiveRow[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `select id, session_timestamp, created_at, last_activity
         from ${this.table} where owner_id = $1 and status = 'active'
        order by session_timestamp desc, created_at desc`,
      [ownerId],
    );
    return rows.map((r) => ({
      id: String(r.id),
      session_timestamp: iso(r.session_timestamp),
      created_at: iso(r.created_at),
      last_activity: iso(r.last_activity),
    }));
  }

  /** Session ids by group, of every group of the owner or only of `groupIds` (ids that are not uuids have none). */
  async groupMembers(ownerId: string, groupIds?: string[]): Promise<Record<string, string[]>> {
    const only = groupIds?.filter(isUuid) ?? null;
    if (only && only.length === 0) return {};
    const rows = await this.db.query<{ group_id: string; ids: string[] }>(
      `select group_id, array_agg(id::text order by session_timestamp desc) as ids
         from ${this.table}
        where owner_id = $1 and group_id is not null and ($2::uuid[] is null or group_id = any($2::uuid[]))
        group by group_id`,
      [ownerId, only],
    );
    return Object.fromEntries(rows.map((r) => [String(r.group_id), r.ids]));
  }

  /** One session with its content, or null when it is not the owner's. */
  async get(ownerId: string, id: string): Promise<Transcript | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `select ${ITEM_COLUMNS}, content,
              (transcription_status = 'failed' and audio_blob <> '') as retryable, summary_outdated
         from ${this.table} where id = $1 and owner_id = $2`,
      [id, ownerId],
    );
    if (!r) return null;
    const { preview: _preview, ...item } = toItem(r);
    return {
      ...item,
      content: String(r.content),
      transcription_retryable: r.retryable === true,
      summary_outdated: r.summary_outdated === true,
    };
  }

  async getItem(ownerId: string, id: string): Promise<TranscriptListItem | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `select ${ITEM_COLUMNS} from ${this.table} where id = $1 and owner_id = $2`,
      [id, ownerId],
    );
    return r ? toItem(r) : null;
  }

  /** `within` runs in the insert's transaction (its events commit with it). */
  async createManual(
    ownerId: string,
    t: NewTranscript,
    within: WithinWrite<TranscriptListItem>,
  ): Promise<TranscriptListItem> {
    return this.db.transaction(async (tx) => {
      const [r] = await tx.query<Record<string, unknown>>(
        `insert into ${this.table}
                (owner_id, group_id, name, session_timestamp, summary, content, preview, source, status)
         values ($1, $2, $3, $4, $5, $6, $7, 'manual', 'ended')
         returning ${ITEM_COLUMNS}`,
        [ownerId, t.groupId, t.name, t.sessionTimestamp, t.summary, t.content, t.preview],
      );
      const item = toItem(r!);
      await within(tx, item);
      return item;
    });
  }

  /** Name and summary always; date and content only when given. */
  async update(ownerId: string, id: string, c: TranscriptChanges): Promise<TranscriptListItem | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `update ${this.table}
          set name = $3, summary = $4,
              session_timestamp = coalesce($5::timestamptz, session_timestamp),
              content = coalesce($6::text, content),
              preview = coalesce($7::text, preview)
        where id = $1 and owner_id = $2
       returning ${ITEM_COLUMNS}`,
      [id, ownerId, c.name, c.summary, c.sessionTimestamp ?? null, c.content ?? null, c.preview ?? null],
    );
    return r ? toItem(r) : null;
  }

  async rename(ownerId: string, id: string, name: string): Promise<TranscriptListItem | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `update ${this.table} set name = $3 where id = $1 and owner_id = $2 returning ${ITEM_COLUMNS}`,
      [id, ownerId, name],
    );
    return r ? toItem(r) : null;
  }

  /** Replaces the summary of an ended session; an active one is left as it is. */
  async updateSummary(
    ownerId: string,
    id: string,
    summary: string,
  ): Promise<TranscriptListItem | 'active' | 'missing'> {
    if (!isUuid(id)) return 'missing';
    const [r] = await this.db.query<Record<string, unknown>>(
      `update ${this.table} set summary = $3, summary_outdated = false
        where id = $1 and owner_id = $2 and status <> 'active' returning ${ITEM_COLUMNS}`,
      [id, ownerId, summary],
    );
    if (r) return toItem(r);
    return (await this.getItem(ownerId, id)) ? 'active' : 'missing';
  }

  async setGroup(ownerId: string, id: string, groupId: string | null): Promise<TranscriptListItem | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `update ${this.table} set group_id = $3 where id = $1 and owner_id = $2 returning ${ITEM_COLUMNS}`,
      [id, ownerId, groupId],
    );
    return r ? toItem(r) : null;
  }

  /**
   * Deletes the session unless it is active (notes go with it); when deleted, the name of the
   * recording it still kept ('' when none), for the caller to delete.
   */
  async deleteEnded(
    ownerId: string,
    id: string,
  ): Promise<{ outcome: 'deleted'; audioBlob: string } | { outcome: 'active' | 'missing' }> {
    if (!isUuid(id)) return { outcome: 'missing' };
    const rows = await this.db.query<{ audio_blob: string }>(
      `delete from ${this.table} where id = $1 and owner_id = $2 and status <> 'active' returning audio_blob`,
      [id, ownerId],
    );
    if (rows.length > 0) return { outcome: 'deleted', audioBlob: rows[0]!.audio_blob };
    return { outcome: (await this.getItem(ownerId, id)) ? 'active' : 'missing' };
  }

  /** Ungroups the owner's sessions of a deleted group; running it twice changes nothing more. */
  async ungroup(ownerId: string, groupId: string): Promise<number> {
    if (!isUuid(groupId)) return 0;
    const rows = await this.db.query<{ id: string }>(
      `update ${this.table} set group_id = null where owner_id = $1 and group_id = $2 returning id`,
      [ownerId, groupId],
    );
    return rows.length;
  }

  /** The session's notes ('' when none), or null when the session is not the owner's. */
  async getNotes(ownerId: string, id: string): Promise<string | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<{ content: string | null }>(
      `select n.content from ${this.table} t left join ${this.notes} n on n.transcript_id = t.id
        where t.id = $1 and t.owner_id = $2`,
      [id, ownerId],
    );
    return r ? (r.content ?? '') : null;
  }

  async putNotes(ownerId: string, id: string, content: string): Promise<string | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<{ content: string }>(
      `insert into ${this.notes} (transcript_id, content, updated_at)
       select id, $3, now() from ${this.table} where id = $1 and owner_id = $2
       on conflict (transcript_id) do update set content = excluded.content, updated_at = now()
       returning content`,
      [id, ownerId, content],
    );
    return r ? r.content : null;
  }
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
       values ($1, $2, $3, $4, $5, 'audio', 'ended', 'queued', $6, $7, $8, $9)
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
        where id = $1 and owner_id = $2 and source = 'audio'`,
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
    r: { content: string; preview: string; audioSeconds: number; provider: string },
    within: WithinWrite<TranscriptListItem>,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<Record<string, unknown>>(
        `update ${this.table}
            set content = $3, preview = $4, audio_seconds = $5, transcription_provider = $6,
                transcription_status = 'completed', transcription_error = '', last_activity = now(),
                audio_blob = ''
          where id = $1 and owner_id = $2 and transcription_status in ('queued', 'processing')
         returning ${ITEM_COLUMNS}`,
        [id, ownerId, r.content, r.preview, r.audioSeconds, r.provider],
      );
      if (!row) return false;
      await within(tx, toItem(row));
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

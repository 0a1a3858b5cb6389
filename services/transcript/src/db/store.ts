import type { Transcript, TranscriptListItem } from '@chronicler/contracts';
import type { DatabaseHandle } from '@chronicler/kit';

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids that are not uuids match no row (PostgreSQL would refuse them with an error). */
export const isUuid = (id: string): boolean => UUID.test(id);

const ITEM_COLUMNS =
  'id, name, session_timestamp, created_at, last_activity, status, group_id, summary, preview, ' +
  'source, transcription_status, transcription_error, audio_seconds';

const SOURCES = new Set(['live', 'manual', 'audio']);
const TRANSCRIPTION_STATES = new Set(['none', 'queued', 'processing', 'completed', 'failed']);

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

export interface TranscriptChanges {
  name: string;
  summary: string;
  sessionTimestamp?: string;
  content?: string;
  preview?: string;
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

  /** The owner's sessions without their content, newest first. */
  async list(ownerId: string): Promise<TranscriptListItem[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `select ${ITEM_COLUMNS}
         from ${this.table} where owner_id = $1
        order by session_timestamp desc, created_at desc`,
      [ownerId],
    );
    return rows.map(toItem);
  }

  async groupMembers(ownerId: string): Promise<Record<string, string[]>> {
    const rows = await this.db.query<{ group_id: string; ids: string[] }>(
      `select group_id, array_agg(id::text order by session_timestamp desc) as ids
         from ${this.table} where owner_id = $1 and group_id is not null
        group by group_id`,
      [ownerId],
    );
    return Object.fromEntries(rows.map((r) => [String(r.group_id), r.ids]));
  }

  /** One session with its content, or null when it is not the owner's. */
  async get(ownerId: string, id: string): Promise<Transcript | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `select ${ITEM_COLUMNS}, content from ${this.table} where id = $1 and owner_id = $2`,
      [id, ownerId],
    );
    if (!r) return null;
    const { preview: _preview, ...item } = toItem(r);
    return { ...item, content: String(r.content) };
  }

  async getItem(ownerId: string, id: string): Promise<TranscriptListItem | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `select ${ITEM_COLUMNS} from ${this.table} where id = $1 and owner_id = $2`,
      [id, ownerId],
    );
    return r ? toItem(r) : null;
  }

  async createManual(ownerId: string, t: NewTranscript): Promise<TranscriptListItem> {
    const [r] = await this.db.query<Record<string, unknown>>(
      `insert into ${this.table}
              (owner_id, group_id, name, session_timestamp, summary, content, preview, source, status)
       values ($1, $2, $3, $4, $5, $6, $7, 'manual', 'ended')
       returning ${ITEM_COLUMNS}`,
      [ownerId, t.groupId, t.name, t.sessionTimestamp, t.summary, t.content, t.preview],
    );
    return toItem(r!);
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

  async setGroup(ownerId: string, id: string, groupId: string | null): Promise<TranscriptListItem | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `update ${this.table} set group_id = $3 where id = $1 and owner_id = $2 returning ${ITEM_COLUMNS}`,
      [id, ownerId, groupId],
    );
    return r ? toItem(r) : null;
  }

  /** Deletes the session unless it is active (notes go with it). */
  async deleteEnded(ownerId: string, id: string): Promise<'deleted' | 'active' | 'missing'> {
    if (!isUuid(id)) return 'missing';
    const rows = await this.db.query<{ id: string }>(
      `delete from ${this.table} where id = $1 and owner_id = $2 and status <> 'active' returning id`,
      [id, ownerId],
    );
    if (rows.length > 0) return 'deleted';
    return (await this.getItem(ownerId, id)) ? 'active' : 'missing';
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
}

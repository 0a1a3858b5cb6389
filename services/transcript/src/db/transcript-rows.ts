import type { Transcript, TranscriptListItem } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle } from '@chronicler/kit';
import {
  ITEM_COLUMNS,
  iso,
  toItem,
  type ActiveRow,
  type ListCursor,
  type NewTranscript,
  type TranscriptChanges,
  type WithinWrite,
} from './store-rows.ts';

/**
 * The sessions' own rows: list, read, create, change, group and delete them, and their notes.
 * TranscriptStore (store.ts) adds the audio transcription and summary states on top.
 */
export class TranscriptRows {
  protected readonly table: string;
  private readonly notes: string;
  /** The voice bot's kept speaker tracks (AudioStore's): a failed live session is tried again from them. */
  protected readonly tracks: string;
  constructor(
    protected readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".transcripts`;
    this.notes = `"${schema}".notes`;
    this.tracks = `"${schema}".audio_tracks`;
  }

  /**
   * Up to `limit` of the owner's sessions in list order after the cursor, each with the
   * cursor that points past it. The cursor keeps the timestamps as PostgreSQL's own text,
   * which round-trips their microseconds (an ISO string from JavaScript would not). The
   * index transcripts_owner_list serves the order and the cursor (no OFFSET, no sort); with
   * `groupId`, only that group's sessions (a group id that is not a uuid has none); with
   * `filter.ungrouped`, only sessions in no group; with `filter.search`, only those whose
   * name or preview contains it, any case (its % and _ match themselves). The filters walk
   * the same index in the same order, so a page still stops after `limit` matches.
   */
  async listPage(
    ownerId: string,
    after: ListCursor | null,
    limit: number,
    groupId?: string,
    filter: ListFilter = {},
  ): Promise<{ item: TranscriptListItem; cursor: ListCursor; version: string }[]> {
    const page = this.pageQuery(ownerId, after, limit, groupId, filter);
    if (!page) return [];
    const rows = await this.db.query<Record<string, unknown>>(
      `select ${ITEM_COLUMNS}, session_timestamp::text as ts_key, created_at::text as created_key,
              xmin::text as row_version
         ${page.from}`,
      page.params,
    );
    return rows.map((r) => ({
      item: toItem(r),
      cursor: { ts: String(r.ts_key), created: String(r.created_key), id: String(r.id) },
      version: rowVersion(r.id, r.row_version),
    }));
  }

  /**
   * The versions of the rows `listPage` would answer with the same arguments, in its order,
   * without reading them: each is the session's id and its row's `xmin` (every UPDATE writes
   * a new row version, whoever writes it), so the list changes when a row on it is written or
   * another row joins or leaves it. One row of text comes back, not the page: the versions
   * joined with ',' (the empty string for an empty page).
   */
  async listPageVersions(
    ownerId: string,
    after: ListCursor | null,
    limit: number,
    groupId?: string,
    filter: ListFilter = {},
  ): Promise<string> {
    const page = this.pageQuery(ownerId, after, limit, groupId, filter);
    if (!page) return '';
    const [r] = await this.db.query<{ versions: string }>(
      `select coalesce(string_agg(p.id::text || '.' || p.row_version, ','
                                  order by p.session_timestamp desc, p.created_at desc, p.id desc), '') as versions
         from (select id, session_timestamp, created_at, xmin::text as row_version ${page.from}) p`,
      page.params,
    );
    return r?.versions ?? '';
  }

  /** The FROM ... LIMIT of a page of the list and its parameters; null when nothing can match. */
  private pageQuery(
    ownerId: string,
    after: ListCursor | null,
    limit: number,
    groupId: string | undefined,
    filter: ListFilter,
  ): { from: string; params: unknown[] } | null {
    if (groupId !== undefined && !isUuid(groupId)) return null;
    const pattern = filter.search ? `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
    return {
      from: `from ${this.table}
        where owner_id = $1
          and ($6::uuid is null or group_id = $6::uuid)
          and ($7::boolean is not true or group_id is null)
          and ($8::text is null or name ilike $8::text escape '\\' or preview ilike $8::text escape '\\')
          and ($2::timestamptz is null
               or (session_timestamp, created_at, id) < ($2::timestamptz, $3::timestamptz, $4::uuid))
        order by session_timestamp desc, created_at desc, id desc
        limit $5`,
      params: [
        ownerId,
        after?.ts ?? null,
        after?.created ?? null,
        after?.id ?? null,
        limit,
        groupId ?? null,
        filter.ungrouped === true,
        pattern,
      ],
    };
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
    return (await this.getVersioned(ownerId, id))?.transcript ?? null;
  }

  /**
   * One session with its content and the version of what was read (see `version`), from
   * one row in one query: the version is exactly that of the transcript beside it.
   */
  async getVersioned(
    ownerId: string,
    id: string,
  ): Promise<{ transcript: Transcript; version: string | null } | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `select ${ITEM_COLUMNS}, content, ${this.retryable} as retryable, summary_outdated, xmin::text as row_version
         from ${this.table} t where id = $1 and owner_id = $2`,
      [id, ownerId],
    );
    if (!r) return null;
    const { preview: _preview, ...item } = toItem(r);
    const transcript: Transcript = {
      ...item,
      content: String(r.content),
      transcription_retryable: r.retryable === true,
      summary_outdated: r.summary_outdated === true,
    };
    return { transcript, version: versionOf(r) };
  }

  /**
   * The version of the owner's session as `getVersioned` would read it, without reading it;
   * null when it is not the owner's. It is the row's `xmin`, the transaction that wrote this version of
   * the row (every UPDATE writes a new one), with whether it is retryable, the one field read
   * from another table. What else a reader shows (speaker names, a recording's lines so far)
   * is not in it.
   */
  async version(ownerId: string, id: string): Promise<{ version: string | null } | null> {
    if (!isUuid(id)) return null;
    const [r] = await this.db.query<Record<string, unknown>>(
      `select status, source, ${this.retryable} as retryable, xmin::text as row_version
         from ${this.table} t where id = $1 and owner_id = $2`,
      [id, ownerId],
    );
    return r ? { version: versionOf(r) } : null;
  }

  /** Whether a failed session can be queued again (its recording or tracks are kept), on the row `t`. */
  private get retryable(): string {
    return `(t.transcription_status = 'failed'
               and (t.audio_blob <> ''
                    or (t.source = 'live' and exists (select 1 from ${this.tracks} k where k.transcript_id = t.id))))`;
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
}

/** One row's version in a page's: its id and the transaction that wrote it. */
const rowVersion = (id: unknown, xmin: unknown): string => `${String(id)}.${String(xmin)}`;

/** Narrowing of a list page (listPage). */
export interface ListFilter {
  ungrouped?: boolean;
  search?: string;
}

/**
 * A row's version: the transaction that wrote it, and whether it was retryable then; null for
 * a live session being recorded, whose content is its lines so far, not the row's.
 */
const versionOf = (r: Record<string, unknown>): string | null =>
  r.status === 'active' && r.source === 'live'
    ? null
    : `${String(r.row_version)}.${r.retryable === true ? 1 : 0}`;

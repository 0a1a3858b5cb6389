import type { PrepItem, PrepMoment } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle } from '@chronicler/kit';

const COLUMNS = 'id, text, done, ticked_by, moment, closed_in, carried_from, created_at';

function toItem(r: Record<string, unknown>): PrepItem {
  const moment = (typeof r.moment === 'string' ? JSON.parse(r.moment) : r.moment) as PrepMoment | null;
  return {
    id: String(r.id),
    text: String(r.text),
    done: r.done === true,
    ticked_by: r.ticked_by === 'transcript' || r.ticked_by === 'user' ? r.ticked_by : null,
    moment: moment ?? null,
    closed_in: r.closed_in == null ? null : String(r.closed_in),
    carried_from: Array.isArray(r.carried_from) ? r.carried_from.map(String) : [],
    created_at: new Date(String(r.created_at)).toISOString(),
  };
}

export interface PrepSession {
  transcript_id: string;
  owner_id: string;
  group_id: string;
  started_at: string;
  recent: string;
  names: string[];
}

/** Every query of the prep checklist (tables prep_items and prep_sessions). */
export class PrepStore {
  private readonly items: string;
  private readonly sessions: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.items = `"${schema}".prep_items`;
    this.sessions = `"${schema}".prep_sessions`;
  }

  /** The group's items: the next plan's (not closed) first, each part in the order written. */
  async list(ownerId: string, groupId: string): Promise<PrepItem[]> {
    if (!isUuid(ownerId) || !isUuid(groupId)) return [];
    const rows = await this.db.query<Record<string, unknown>>(
      `select ${COLUMNS} from ${this.items} where owner_id = $1 and group_id = $2
        order by (closed_in is not null), seq`,
      [ownerId, groupId],
    );
    return rows.map(toItem);
  }

  async count(ownerId: string, groupId: string): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      `select count(*)::int as n from ${this.items} where owner_id = $1 and group_id = $2`,
      [ownerId, groupId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async create(ownerId: string, groupId: string, text: string): Promise<PrepItem> {
    const rows = await this.db.query<Record<string, unknown>>(
      `insert into ${this.items} (owner_id, group_id, text) values ($1, $2, $3) returning ${COLUMNS}`,
      [ownerId, groupId, text],
    );
    return toItem(rows[0]!);
  }

  /** A new text and/or state; null when the item is not the owner's group's. */
  async update(
    ownerId: string,
    groupId: string,
    itemId: string,
    change: { text?: string; done?: boolean },
  ): Promise<PrepItem | null> {
    if (!isUuid(itemId)) return null;
    const sets: string[] = [];
    const params: unknown[] = [ownerId, groupId, itemId];
    if (change.text !== undefined) {
      params.push(change.text);
      sets.push(`text = $${params.length}`);
    }
    if (change.done === true) {
      // A tick by hand keeps a moment the transcript found (it is still where it came up).
      sets.push(`done = true`, `ticked_by = case when done then ticked_by else 'user' end`);
    } else if (change.done === false) {
      // Unticked: it did not come up after all, so its moment goes with the tick.
      sets.push('done = false', 'ticked_by = null', 'moment = null');
    }
    if (sets.length === 0) {
      const rows = await this.db.query<Record<string, unknown>>(
        `select ${COLUMNS} from ${this.items} where owner_id = $1 and group_id = $2 and id = $3`,
        params,
      );
      return rows[0] ? toItem(rows[0]) : null;
    }
    const rows = await this.db.query<Record<string, unknown>>(
      `update ${this.items} set ${sets.join(', ')}
        where owner_id = $1 and group_id = $2 and id = $3 returning ${COLUMNS}`,
      params,
    );
    return rows[0] ? toItem(rows[0]) : null;
  }

  async delete(ownerId: string, groupId: string, itemId: string): Promise<boolean> {
    if (!isUuid(itemId)) return false;
    const rows = await this.db.query<{ id: string }>(
      `delete from ${this.items} where owner_id = $1 and group_id = $2 and id = $3 returning id`,
      [ownerId, groupId, itemId],
    );
    return rows.length > 0;
  }

  /** The next plan's items still open: what a live session of the group may tick. */
  async open(ownerId: string, groupId: string): Promise<PrepItem[]> {
    const rows = await this.db.query<Record<string, unknown>>(
      `select ${COLUMNS} from ${this.items}
        where owner_id = $1 and group_id = $2 and closed_in is null and not done order by seq`,
      [ownerId, groupId],
    );
    return rows.map(toItem);
  }

  /** Ticks an item with its moment unless it was ticked or closed meanwhile; the item as stored, or null. */
  async tick(itemId: string, moment: PrepMoment): Promise<PrepItem | null> {
    const rows = await this.db.query<Record<string, unknown>>(
      `update ${this.items} set done = true, ticked_by = 'transcript', moment = $2::jsonb
        where id = $1 and not done and closed_in is null returning ${COLUMNS}`,
      [itemId, JSON.stringify(moment)],
    );
    return rows[0] ? toItem(rows[0]) : null;
  }

  /**
   * Closes a session's plan in one statement: the items that came up in it leave the next
   * plan (closed in it); those still open stay, carried forward from it (once per session).
   */
  async carry(ownerId: string, groupId: string, transcriptId: string): Promise<void> {
    await this.db.query(
      `update ${this.items} set
          closed_in = case when done then $3::uuid else closed_in end,
          carried_from = case when done or $3::uuid = any(carried_from) then carried_from
                              else carried_from || $3::uuid end
        where owner_id = $1 and group_id = $2 and closed_in is null`,
      [ownerId, groupId, transcriptId],
    );
  }

  async deleteGroup(ownerId: string, groupId: string): Promise<number> {
    if (!isUuid(ownerId) || !isUuid(groupId)) return 0;
    await this.db.query(`delete from ${this.sessions} where owner_id = $1 and group_id = $2`, [
      ownerId,
      groupId,
    ]);
    const rows = await this.db.query<{ id: string }>(
      `delete from ${this.items} where owner_id = $1 and group_id = $2 returning id`,
      [ownerId, groupId],
    );
    return rows.length;
  }

  /** A live session of a group started (idempotent: a redelivered start changes nothing). */
  async sessionStarted(s: Omit<PrepSession, 'recent'>): Promise<void> {
    await this.db.query(
      `insert into ${this.sessions} (transcript_id, owner_id, group_id, started_at, names)
       values ($1, $2, $3, $4::timestamptz, $5::text[]) on conflict (transcript_id) do nothing`,
      [s.transcript_id, s.owner_id, s.group_id, s.started_at, s.names],
    );
  }

  async session(transcriptId: string): Promise<PrepSession | null> {
    if (!isUuid(transcriptId)) return null;
    const rows = await this.db.query<Record<string, unknown>>(
      `select transcript_id, owner_id, group_id, started_at, recent, names from ${this.sessions}
        where transcript_id = $1`,
      [transcriptId],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      transcript_id: String(r.transcript_id),
      owner_id: String(r.owner_id),
      group_id: String(r.group_id),
      started_at: new Date(String(r.started_at)).toISOString(),
      recent: String(r.recent ?? ''),
      names: Array.isArray(r.names) ? r.names.map(String) : [],
    };
  }

  async setRecent(transcriptId: string, recent: string): Promise<void> {
    await this.db.query(`update ${this.sessions} set recent = $2 where transcript_id = $1`, [
      transcriptId,
      recent,
    ]);
  }

  async sessionEnded(transcriptId: string): Promise<void> {
    if (!isUuid(transcriptId)) return;
    await this.db.query(`delete from ${this.sessions} where transcript_id = $1`, [transcriptId]);
  }
}

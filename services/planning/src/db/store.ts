import type { PlanningMessage } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle } from '@chronicler/kit';

function toMessage(r: Record<string, unknown>): PlanningMessage {
  return {
    id: String(r.id),
    role: r.role === 'user' ? 'user' : 'assistant',
    content: String(r.content),
    timestamp: new Date(String(r.created_at)).toISOString(),
  };
}

export interface NewMessage {
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
}

/** Every query of the planning schema. */
export class PlanningStore {
  private readonly table: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".messages`;
  }

  /** The most recent `limit` messages of the owner's group, oldest first. */
  async recent(ownerId: string, groupId: string, limit: number): Promise<PlanningMessage[]> {
    if (!isUuid(ownerId) || !isUuid(groupId)) return [];
    const rows = await this.db.query<Record<string, unknown>>(
      `select id, role, content, created_at from (
         select id, seq, role, content, created_at from ${this.table}
          where owner_id = $1 and group_id = $2 order by seq desc limit $3
       ) last order by seq`,
      [ownerId, groupId, limit],
    );
    return rows.map(toMessage);
  }

  /** Stores the messages in one statement, so a question is never kept without its reply. */
  async append(ownerId: string, groupId: string, messages: NewMessage[]): Promise<PlanningMessage[]> {
    const params: unknown[] = [ownerId, groupId];
    const values = messages.map((m) => {
      params.push(m.role, m.content, m.timestamp);
      const n = params.length;
      return `($1, $2, $${n - 2}, $${n - 1}, $${n}::timestamptz)`;
    });
    const rows = await this.db.query<Record<string, unknown>>(
      `insert into ${this.table} (owner_id, group_id, role, content, created_at)
       values ${values.join(', ')} returning id, seq, role, content, created_at`,
      params,
    );
    return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toMessage);
  }

  async deleteGroup(ownerId: string, groupId: string): Promise<number> {
    if (!isUuid(ownerId) || !isUuid(groupId)) return 0;
    const rows = await this.db.query<{ id: string }>(
      `delete from ${this.table} where owner_id = $1 and group_id = $2 returning id`,
      [ownerId, groupId],
    );
    return rows.length;
  }
}

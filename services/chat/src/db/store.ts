import type { ChatMessage } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle } from '@chronicler/kit';

/** Every query of the chat schema, so handlers never spell SQL. */
export class ChatStore {
  private readonly table: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".chat_messages`;
  }

  /**
   * The latest turns of one conversation, oldest first: at most `limit` of them and, counting
   * back from the newest, no more than `maxChars` of text (the newest one always), so the
   * answer fits one bus message however long the answers were.
   */
  async recent(
    ownerId: string,
    transcriptId: string,
    opts: { limit: number; maxChars: number },
  ): Promise<ChatMessage[]> {
    // Ids that are not uuids have no conversation (PostgreSQL would refuse them with an error).
    if (!isUuid(ownerId) || !isUuid(transcriptId)) return [];
    const rows = await this.db.query<{ role: ChatMessage['role']; content: string }>(
      `select role, content from ${this.table}
        where owner_id = $1 and transcript_id = $2 order by id desc limit $3`,
      [ownerId, transcriptId, opts.limit],
    );
    const kept: ChatMessage[] = [];
    let chars = 0;
    for (const r of rows) {
      chars += r.content.length;
      if (kept.length > 0 && chars > opts.maxChars) break;
      kept.push({ role: r.role, content: r.content });
    }
    return kept.reverse();
  }

  /** Appends turns in the given order, in one statement (both or neither). */
  async append(ownerId: string, transcriptId: string, messages: ChatMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const params: unknown[] = [ownerId, transcriptId];
    const values = messages.map((m) => {
      params.push(m.role, m.content);
      return `($1, $2, $${params.length - 1}, $${params.length})`;
    });
    await this.db.query(
      `insert into ${this.table} (owner_id, transcript_id, role, content) values ${values.join(', ')}`,
      params,
    );
  }
}

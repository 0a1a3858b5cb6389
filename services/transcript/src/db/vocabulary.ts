import { isUuid, type DatabaseHandle } from '@chronicler/kit';

/** What the learned campaign vocabulary is read from: a bounded sample of a group's sessions. */
export interface GroupTexts {
  summaries: string[];
  transcripts: string[];
}

/** The queries behind svc.transcript.group-names; every one filters by owner. */
export class VocabularyStore {
  private readonly table: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".transcripts`;
  }

  /**
   * The summaries and the first `maxChars` characters of the transcripts of the owner's newest
   * `sessions` sessions in the group. `left()` cuts in the database, so a 500,000-character
   * transcript never crosses to this process whole; the index transcripts_owner_group finds
   * the group's rows.
   */
  async groupTexts(
    ownerId: string,
    groupId: string,
    sessions: number,
    maxChars: number,
  ): Promise<GroupTexts> {
    if (!isUuid(groupId) || !isUuid(ownerId)) return { summaries: [], transcripts: [] };
    const rows = await this.db.query<{ summary: string; content: string }>(
      `select summary, left(content, $3) as content from ${this.table}
        where owner_id = $1 and group_id = $2
        order by session_timestamp desc, created_at desc, id desc
        limit $4`,
      [ownerId, groupId, maxChars, sessions],
    );
    return {
      summaries: rows.map((r) => String(r.summary)).filter((s) => s.trim()),
      transcripts: rows.map((r) => String(r.content)).filter((s) => s.trim()),
    };
  }
}
